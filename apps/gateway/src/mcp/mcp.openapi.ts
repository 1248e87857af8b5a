type JsonSchema = Record<string, unknown>;

const PROBLEM = { $ref: '#/components/responses/Problem' };
const jsonRpc = { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol', properties: { jsonrpc: { const: '2.0' } }, required: ['jsonrpc'] };

export const mcpTag = 'mcp';

/**
 * `/mcp` speaks JSON-RPC (MCP Streamable HTTP), not REST: described by hand like the event stream,
 * so clients and the route check know it is there; its tools are listed by `tools/list`.
 */
export const mcpPaths: Record<string, JsonSchema> = {
  '/mcp': {
    post: {
      operationId: 'mcp',
      tags: [mcpTag],
      summary: 'Model Context Protocol over Streamable HTTP (stateless, JSON answers): team tools for Claude Code, Claude Desktop or any MCP client',
      'x-required-role': 'viewer',
      security: [{ bearerAuth: [] }],
      parameters: [
        { name: 'MCP-Protocol-Version', in: 'header', required: false, description: 'The negotiated protocol version', schema: { type: 'string' } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [jsonRpc, { type: 'array', items: jsonRpc }] } } } },
      responses: {
        200: { description: 'The JSON-RPC response', content: { 'application/json': { schema: jsonRpc } } },
        202: { description: 'A notification or response was accepted (no body)' },
        400: PROBLEM,
        401: PROBLEM,
        413: PROBLEM,
        415: PROBLEM,
        429: PROBLEM,
      },
    },
  },
};
