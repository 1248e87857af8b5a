export type { ApiCallOptions, ApiMethod, ApiReply, HeadspaceApi } from './headspace-api';
export { createHeadspaceMcpServer, type HeadspaceMcpServerOptions } from './headspace-mcp-server';
export { describeProblem, toToolResult, unreachableResult } from './tool-result';
export { headspaceTools, type ApiRequest, type HeadspaceTool } from './tools';
