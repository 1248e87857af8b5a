import { z } from 'zod';
import { defineCommand, defineEvent } from '../messages';

/** Team names become directory and subject-safe identifiers: lowercase kebab-case, 1–64 chars. */
export const teamNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 characters of lowercase letters, digits and dashes, starting with a letter or digit');

export const teamStreamId = (teamName: string) => `team-${teamName}`;

export const teamCreated = defineEvent({
  service: 'team-manager',
  category: 'team',
  name: 'created',
  schema: z.object({
    teamId: z.string(),
    name: teamNameSchema,
    description: z.string().max(2_000).optional(),
    leadAgentType: z.string().min(1),
    metadata: z.record(z.string(), z.string()).default({}),
    createdAt: z.iso.datetime(),
  }),
});

export const createTeam = defineCommand({
  service: 'team-manager',
  name: 'create-team',
  request: z.object({
    name: teamNameSchema,
    description: z.string().max(2_000).optional(),
    leadAgentType: z.string().min(1).max(100).default('general-purpose'),
    metadata: z.record(z.string(), z.string().max(500)).default({}),
  }),
  response: z.object({ teamId: z.string(), name: z.string(), streamVersion: z.string() }),
});

export const teamEvents = [teamCreated];
