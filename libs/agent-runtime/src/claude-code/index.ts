export * from './spawn-args';
export * from './result';
export * from './run';
export * from './git-changes';
