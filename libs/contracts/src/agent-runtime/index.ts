export * from './reflection.contracts';
export * from './handoff.contracts';
export * from './agent-result.contracts';
export * from './agent-definition.contracts';
