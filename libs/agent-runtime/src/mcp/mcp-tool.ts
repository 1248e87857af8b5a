import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCodes } from '@headspace/contracts';
import { z } from 'zod';
import type { ToolDefinition, ToolResult } from '../tools/types';

/** Tool names the Messages API accepts: `^[a-zA-Z0-9_-]{1,128}$`. */
const MAX_TOOL_NAME = 128;
const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

/** `mcp__<server>__<tool>`, as Claude Code names them; characters the API refuses become `_`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${clean(server)}__${clean(tool)}`.slice(0, MAX_TOOL_NAME);
}

/** A server's tool as a registry tool; `inputSchema` (the server's JSON Schema) goes to the model as is. */
export interface McpToolDefinition extends ToolDefinition<Record<string, unknown>> {
  server: string;
  /** The tool's name on its server. */
  mcpName: string;
  inputSchema: Record<string, unknown>;
}

/** What the server answers to `tools/list`, the parts used here. */
export interface ListedMcpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

type ContentPart = { type: string; text?: string; mimeType?: string; uri?: string; resource?: { uri?: string; text?: string; mimeType?: string }; name?: string };

/** The text the model reads for a `tools/call` result: text parts as they are, other parts described. */
export function mcpResultText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const parts = Array.isArray(result.content) ? (result.content as ContentPart[]) : [];
  const lines = parts.map((p) => {
    switch (p.type) {
      case 'text':
        return p.text ?? '';
      case 'image':
      case 'audio':
        return `[${p.type} ${p.mimeType ?? ''}]`.replace(' ]', ']');
      case 'resource':
        return p.resource?.text ?? `[resource ${p.resource?.uri ?? ''}]`;
      case 'resource_link':
        return `[resource ${p.name ?? ''} ${p.uri ?? ''}]`;
      default:
        return `[${p.type}]`;
    }
  });
  if (lines.length > 0) return lines.join('\n');
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  if (result.toolResult !== undefined) return JSON.stringify(result.toolResult);
  return '(no output)';
}

/** Results the model reads are capped like Bash output, so one server cannot flood the context. */
export const MCP_MAX_RESULT_CHARS = 50_000;

/**
 * A registry tool that calls `tool` on `client`. The input is any object: the server validates it
 * against its own schema and says what is wrong, which the model reads like any tool error.
 */
export function mcpToolDefinition(server: string, tool: ListedMcpTool, client: Pick<Client, 'callTool'>, timeoutMs: number): McpToolDefinition {
  return {
    name: mcpToolName(server, tool.name),
    server,
    mcpName: tool.name,
    description: (tool.description ?? `${tool.name} (MCP server ${server})`).slice(0, 10_000),
    inputSchema: tool.inputSchema,
    schema: z.record(z.string(), z.unknown()),
    async execute(input, ctx): Promise<ToolResult> {
      const result = await client.callTool({ name: tool.name, arguments: input }, undefined, { timeout: timeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      let content = mcpResultText(result);
      if (content.length > MCP_MAX_RESULT_CHARS) content = `${content.slice(0, MCP_MAX_RESULT_CHARS)}\n… (${content.length - MCP_MAX_RESULT_CHARS} more characters cut)`;
      return result.isError === true ? { content, isError: true, code: ErrorCodes.mcpToolFailed } : { content, isError: false };
    },
  };
}
