import { z } from 'zod';
import { defineQuery } from '../messages';
import { teamNameSchema } from '../team-manager/team.contracts';
import { runSourceSchema } from './run-source';

/** One tool of an MCP server, as agents see it (`mcp__<server>__<tool>`). */
export const mcpToolViewSchema = z.object({
  name: z.string(),
  /** The tool's own name on its server. */
  tool: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});

export const mcpServerViewSchema = z.object({
  name: z.string(),
  /** `project`: the source's `.mcp.json`; `user`: `$HS_AGENT_HOME/.mcp.json`. */
  scope: z.enum(['project', 'user']),
  type: z.enum(['stdio', 'http']),
  status: z.enum(['connected', 'failed']),
  error: z.string().optional(),
  tools: z.array(mcpToolViewSchema),
});

/**
 * The MCP servers and tools an agent session on `source` would get: each server connected as a
 * session would connect it, its status and namespaced tools, and every config problem by file and
 * field. `source` is checked by the same policy as a run's.
 */
export const listMcpTools = defineQuery({
  service: 'orchestrator',
  name: 'list-mcp-tools',
  request: z.object({ team: teamNameSchema, source: runSourceSchema }),
  response: z.object({
    servers: z.array(mcpServerViewSchema),
    problems: z.array(z.object({ source: z.string(), field: z.string(), message: z.string(), server: z.string().optional() })),
    /** Above this many tools a session loads them through ToolSearch. */
    toolSearchThreshold: z.number().int(),
  }),
});
