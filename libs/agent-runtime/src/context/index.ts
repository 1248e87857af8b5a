export * from './atomic-write';
export * from './tokens';
export * from './triage';
export * from './thresholds';
export * from './context-window';
export * from './handoff';
export * from './ingest';
export * from './compaction';
