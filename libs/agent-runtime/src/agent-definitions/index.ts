export * from './aliases';
export * from './parse';
export * from './anti-patterns';
export * from './runtime-settings';
export * from './templates';
export * from './registry';
