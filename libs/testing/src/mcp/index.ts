export * from './fixture-mcp-server';
export { FIXTURE_MCP_STDIO_SCRIPT } from './fixture-mcp-stdio';
