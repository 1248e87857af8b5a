import { z } from 'zod';
import { defineQuery } from '../messages';
import { inboxRoleSchema } from './mailbox.contracts';
import { teamNameSchema } from './team.contracts';

/** Every open inbox of a team (lead, members, and anyone else given one), with its unread count, for UIs. */
export const listInboxes = defineQuery({
  service: 'team-manager',
  name: 'list-inboxes',
  request: z.object({ team: teamNameSchema }),
  response: z.object({
    inboxes: z.array(
      z.object({
        memberId: z.string(),
        role: inboxRoleSchema,
        openedAt: z.iso.datetime(),
        messages: z.number().int().nonnegative(),
        unread: z.number().int().nonnegative(),
        lastMessageAt: z.iso.datetime().nullable(),
      }),
    ),
  }),
});
