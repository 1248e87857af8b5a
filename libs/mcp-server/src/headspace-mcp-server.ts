import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { HeadspaceApi } from './headspace-api';
import { toToolResult, unreachableResult } from './tool-result';
import { headspaceTools } from './tools';

export interface HeadspaceMcpServerOptions {
  version?: string;
}

const INSTRUCTIONS =
  'Headspace runs teams of AI coding agents. These tools act on a team through its REST API with your token: ' +
  'list_teams first, then the task list (list_tasks, create_task, claim_task, complete_task), the mailboxes ' +
  '(send_message, read_mailbox), approvals, budgets and runs. A refused call returns the error code and detail. ' +
  'Every write tool takes an optional idempotency_key: send the same key when retrying a call, and it is done once.';

/**
 * Headspace as an MCP server: one tool per REST operation, each call sent through `api` as the
 * caller. No authorisation here: REST decides, and its refusals come back as error results.
 */
export function createHeadspaceMcpServer(api: HeadspaceApi, options: HeadspaceMcpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'headspace', version: options.version ?? '0.1.0' }, { instructions: INSTRUCTIONS });
  for (const tool of headspaceTools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        const request = tool.request(args);
        try {
          const reply = request.idempotencyKey
            ? await api.call(request.method, request.path, request.body, { idempotencyKey: request.idempotencyKey })
            : await api.call(request.method, request.path, request.body);
          return toToolResult(reply);
        } catch (error) {
          return unreachableResult(error);
        }
      },
    );
  }
  return server;
}
