import { z } from 'zod';
import { apiTokenProjectsSchema, apiTokenRoleSchema, apiTokenTeamsSchema } from './token.contracts';

/**
 * `GET /api/v1/whoami`: the calling token as the gateway sees it — its role and scope, never its
 * secret. A client shows and offers what the token may do from this, instead of probing writes.
 */
export const whoamiSchema = z.object({
  /** The token's id, as GET /api/v1/tokens lists it. */
  tokenId: z.string(),
  name: z.string(),
  role: apiTokenRoleSchema,
  teams: apiTokenTeamsSchema,
  projects: apiTokenProjectsSchema,
});
export type Whoami = z.output<typeof whoamiSchema>;
