export * from './prompt';
export * from './parse-reflection';
export * from './learnings-file';
export * from './learnings-store';
export * from './skill-file';
export * from './team-memory';
export * from './experience-file';
