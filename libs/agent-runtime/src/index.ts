export * from './tools';
export * from './hooks';
export * from './context';
export * from './reflection';
export * from './agent-definitions';
export * from './claude-code';
export * from './sandbox';
export * from './mcp';
