export * from './spawn-args';
export * from './result';
export * from './run';
export * from './git-changes';
export * from './stream';
export * from './policy';
export * from './policy-check';
export * from './loopback-bridge';
