import { listMcpTools, runSourceSchema } from '@headspace/contracts';
import { z } from 'zod';
import { queryRoute, type ApiRoute } from './api-route';

/**
 * What agents on a project would get from MCP. Operator, not viewer: listing starts the project's
 * stdio servers (in the team's sandbox) and reaches its HTTP servers.
 */
export const mcpToolsRoutes: ApiRoute[] = [
  queryRoute(listMcpTools, {
    operationId: 'listMcpTools',
    path: '/api/v1/teams/:team/mcp-tools',
    tag: 'mcp',
    summary: 'MCP servers of a project (`source`: a directory under HS_SOURCE_ROOTS or a git URL) with their status and namespaced tools, and every `.mcp.json` problem by file and field',
    role: 'operator',
    query: z.object({ source: runSourceSchema }),
  }),
];
