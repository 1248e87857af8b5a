export * from './events';
export * from './config';
export * from './handlers';
export * from './engine';
export * from './builtins';
export * from './run-tool';
export * from './setup';
