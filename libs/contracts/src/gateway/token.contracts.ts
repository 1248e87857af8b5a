import { z } from 'zod';
import { teamNameSchema } from '../team-manager/team.contracts';

/** Gateway API token roles, weakest first: viewer reads, operator runs team commands, admin configures. */
export const apiTokenRoles = ['viewer', 'operator', 'admin'] as const;
export const apiTokenRoleSchema = z.enum(apiTokenRoles);

const projectNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lowercase letters, digits or dashes');

/** `'*'` = every team (or project); otherwise the exact names the token may see and act on. */
export const apiTokenTeamsSchema = z.union([z.literal('*'), z.array(teamNameSchema).max(200)]);
export const apiTokenProjectsSchema = z.union([z.literal('*'), z.array(projectNameSchema).max(200)]);

export const createApiTokenRequestSchema = z.strictObject({
  name: z.string().min(1).max(100),
  role: apiTokenRoleSchema,
  teams: apiTokenTeamsSchema,
  projects: apiTokenProjectsSchema.default('*'),
});

export const apiTokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: apiTokenRoleSchema,
  teams: apiTokenTeamsSchema,
  projects: apiTokenProjectsSchema,
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type ApiTokenView = z.output<typeof apiTokenViewSchema>;

/** The answer to a token creation: the only time the plaintext token is ever shown. */
export const createdApiTokenSchema = z.object({
  id: z.string(),
  token: z.string(),
  name: z.string(),
  role: apiTokenRoleSchema,
  teams: apiTokenTeamsSchema,
  projects: apiTokenProjectsSchema,
});

export const apiTokenIdParamsSchema = z.object({ id: z.uuid() });
