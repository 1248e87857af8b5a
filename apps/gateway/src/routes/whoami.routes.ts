import { whoamiSchema, type Whoami } from '@headspace/contracts';
import { z } from 'zod';
import type { ApiRoute } from './api-route';

/** Who the bearer token is: a client reads its role and scope here instead of probing with writes. */
export const whoamiRoutes: ApiRoute[] = [
  {
    operationId: 'whoami',
    method: 'GET',
    path: '/api/v1/whoami',
    tag: 'tokens',
    summary: "The calling token's name, role and scope (teams, projects): what a client may show and do; never its secret",
    role: 'viewer',
    team: 'none',
    status: 200,
    request: z.object({}),
    response: whoamiSchema,
    build: () => ({}),
    call: async (_input, { principal: { tokenId, name, role, teams, projects } }): Promise<Whoami> => ({
      tokenId,
      name,
      role,
      teams: teams === '*' ? teams : [...teams],
      projects: projects === '*' ? projects : [...projects],
    }),
  },
];
