export * from './mcp-config';
export * from './mcp-tool';
export * from './mcp-connections';
export * from './mcp-toolset';
export * from './tool-search';
