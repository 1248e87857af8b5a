import { z } from 'zod';
import { apiPath, defined, defineTool, withQuery } from './headspace-tool';
import { member, paging, team } from './common';

const memberId = member("The inbox owner's member id (e.g. \"al\")");

export const mailboxTools = [
  defineTool({
    name: 'send_message',
    title: 'Send a message',
    description:
      'Sends a message from one member to another (type "message", with `to`) or to the whole team (type "broadcast"). The summary must be 5-10 words; the body holds the details.',
    input: {
      team,
      type: z.enum(['message', 'broadcast']).default('message').describe('"message" to one member, "broadcast" to everyone'),
      from: member('The sender\'s member id'),
      to: z.string().min(1).optional().describe('The recipient\'s member id (for type "message")'),
      summary: z.string().min(1).describe('5-10 words saying what the message is about'),
      body: z.string().min(1).describe('The message text'),
    },
    readOnly: false,
    request: ({ team, ...message }) => ({ method: 'POST', path: apiPath`/api/v1/teams/${team}/messages`, body: defined(message) }),
  }),
  defineTool({
    name: 'read_mailbox',
    title: "Read a member's mailbox",
    description: "Lists a member's messages, oldest first, each with sender, summary, body and whether it was read. Does not mark anything read.",
    input: { team, memberId, unreadOnly: z.boolean().optional().describe('Only messages not read yet'), ...paging },
    readOnly: true,
    request: ({ team, memberId, unreadOnly, limit, cursor }) => ({
      method: 'GET',
      path: withQuery(apiPath`/api/v1/teams/${team}/inboxes/${memberId}/messages`, { unreadOnly, limit, cursor }),
    }),
  }),
  defineTool({
    name: 'take_unread_messages',
    title: 'Take unread messages',
    description: "Returns a member's unread messages and marks them read, as a teammate does when it picks up its mail.",
    input: { team, memberId },
    readOnly: false,
    request: ({ team, memberId }) => ({ method: 'POST', path: apiPath`/api/v1/teams/${team}/inboxes/${memberId}/take-unread`, body: {} }),
  }),
];
