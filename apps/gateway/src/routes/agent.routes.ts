import { listAgents, runSourceSchema, validateAgent } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'agents';

/** Custom agent definitions (`.headspace/agents/*.md`): what a project's sessions can delegate to, and a file checked before it is committed. */
export const agentRoutes: ApiRoute[] = [
  queryRoute(listAgents, {
    operationId: 'listAgents',
    path: '/api/v1/teams/:team/agents',
    tag,
    summary:
      'Agents a session in the project `source` would see (project > user > shipped templates), with files that do not load (file, field, message), shadowed definitions and anti-pattern warnings; `source` follows the runs’ source policy',
    query: z.object({ source: runSourceSchema.optional() }),
  }),
  commandRoute(validateAgent, {
    operationId: 'validateAgent',
    path: '/api/v1/agents/validate',
    tag,
    summary: 'Check one agent file’s text (`{ file, text }`): errors naming the frontmatter field, and anti-pattern warnings',
    role: 'viewer',
  }),
];
