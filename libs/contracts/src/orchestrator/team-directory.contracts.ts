import { z } from 'zod';
import { defineQuery } from '../messages';

/** The orchestrator's own view of the teams it can run work for, fed by team-manager events. */
export const listKnownTeams = defineQuery({
  service: 'orchestrator',
  name: 'list-known-teams',
  request: z.object({}).default({}),
  response: z.object({
    teams: z.array(z.object({ teamId: z.string(), name: z.string(), leadAgentType: z.string(), createdAt: z.string() })),
  }),
});
