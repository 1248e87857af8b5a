import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from './team.contracts';

/**
 * Mailboxes (seed 004 Feature 3, seed 003 Req 6.2/6.5): teammates talk only through explicit
 * messages delivered to one another's inboxes.
 *
 * Streams: `mailbox-<team>` is the team's mailbox registry (which inboxes are open and with which
 * role, plus the shutdown protocol's requests and answers: small, read whole by every send);
 * `inbox-<team>/<member>` holds the copies delivered to one member and its read markers (large,
 * only appended to by sends, and decided against only by that member's take-unread). `/` cannot
 * occur in a team name, so the two never collide.
 */
export const mailboxStreamId = (team: string) => `mailbox-${team}`;
export const inboxStreamId = (team: string, memberId: string) => `inbox-${team}/${memberId}`;

/** A member id: an agent name or a session key such as `agent:{agentId}:teammate:{uuid}`. */
export const mailboxMemberIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9:._@-]*$/, 'must be letters, digits and : . _ @ - (an agent name or session key)');

export const inboxRoleSchema = z.enum(['lead', 'member']);

/** Seed 003 Req 6.5: what a message is about. */
export const messageTopicSchema = z.enum(['task_assignment', 'finding', 'question', 'status_update']);

export const messageTypeSchema = z.enum(['message', 'broadcast', 'shutdown_request', 'shutdown_response', 'idle_notification']);

export const MESSAGE_BODY_MAX = 10_000;

const wordCount = (text: string) => text.trim().split(/\s+/).filter(Boolean).length;

/** A UI preview line: 5-10 words (seed 004 F3 #14), at most 200 characters. */
export const messageSummarySchema = z
  .string()
  .max(200)
  .refine((s) => wordCount(s) >= 5 && wordCount(s) <= 10, 'must be 5-10 words');

const bodySchema = z.string().min(1).max(MESSAGE_BODY_MAX);

// ---- events ----

export const inboxOpened = defineEvent({
  service: 'team-manager',
  category: 'mailbox',
  name: 'inbox-opened',
  schema: z.object({ team: teamNameSchema, memberId: mailboxMemberIdSchema, role: inboxRoleSchema, openedAt: z.iso.datetime() }),
});

export const messageDelivered = defineEvent({
  service: 'team-manager',
  category: 'mailbox',
  name: 'message-delivered',
  schema: z.object({
    messageId: z.string(),
    team: teamNameSchema,
    recipient: mailboxMemberIdSchema,
    from: mailboxMemberIdSchema,
    type: messageTypeSchema,
    /** `summary`: the lead's copy of a peer DM between two other members; it carries no body. */
    visibility: z.enum(['full', 'summary']),
    /** The addressee of a peer DM whose summary-only copy this is. */
    peerTo: mailboxMemberIdSchema.optional(),
    body: z.string().max(MESSAGE_BODY_MAX).nullable(),
    summary: z.string().max(200).optional(),
    topic: messageTopicSchema.optional(),
    requestId: z.string().optional(),
    approve: z.boolean().optional(),
    reason: z.string().max(2_000).optional(),
    /** An idle notification that reached the lead while its shutdown request was outstanding: not to be answered. */
    suppressAutoReply: z.boolean().optional(),
    sentAt: z.iso.datetime(),
  }),
});

export const messagesRead = defineEvent({
  service: 'team-manager',
  category: 'mailbox',
  name: 'messages-read',
  schema: z.object({
    team: teamNameSchema,
    memberId: mailboxMemberIdSchema,
    messageIds: z.array(z.string()),
    /** Every copy in the inbox stream up to this version is read. */
    throughVersion: z.string(),
    readAt: z.iso.datetime(),
  }),
});

export const shutdownRequested = defineEvent({
  service: 'team-manager',
  category: 'mailbox',
  name: 'shutdown-requested',
  schema: z.object({ team: teamNameSchema, requestId: z.string(), from: mailboxMemberIdSchema, to: mailboxMemberIdSchema, requestedAt: z.iso.datetime() }),
});

export const shutdownAnswered = defineEvent({
  service: 'team-manager',
  category: 'mailbox',
  name: 'shutdown-answered',
  schema: z.object({
    team: teamNameSchema,
    requestId: z.string(),
    from: mailboxMemberIdSchema,
    to: mailboxMemberIdSchema,
    approve: z.boolean(),
    reason: z.string().max(2_000).optional(),
    answeredAt: z.iso.datetime(),
  }),
});

export const mailboxEvents = [inboxOpened, messageDelivered, messagesRead, shutdownRequested, shutdownAnswered];

// ---- commands and queries ----

export const openInbox = defineCommand({
  service: 'team-manager',
  name: 'open-inbox',
  request: z.object({ team: teamNameSchema, memberId: mailboxMemberIdSchema, role: inboxRoleSchema }),
  response: z.object({ team: z.string(), memberId: z.string(), role: inboxRoleSchema, opened: z.boolean() }),
});

const sendBase = { team: teamNameSchema, from: mailboxMemberIdSchema };

/** The SendMessage tool of the seeds: one command, the `type` decides the shape. */
export const sendMessage = defineCommand({
  service: 'team-manager',
  name: 'send-message',
  request: z.discriminatedUnion('type', [
    z.object({
      ...sendBase,
      type: z.literal('message'),
      to: mailboxMemberIdSchema,
      body: bodySchema,
      summary: messageSummarySchema,
      topic: messageTopicSchema.optional(),
    }),
    z.object({ ...sendBase, type: z.literal('broadcast'), body: bodySchema, summary: messageSummarySchema, topic: messageTopicSchema.optional() }),
    z.object({
      ...sendBase,
      type: z.literal('shutdown_request'),
      to: mailboxMemberIdSchema,
      body: bodySchema.optional(),
      summary: messageSummarySchema.optional(),
      /** The team shutdown protocol's own request id for this member (else one is derived from the command id). */
      requestId: z.string().min(1).max(100).optional(),
    }),
    z.object({
      ...sendBase,
      type: z.literal('shutdown_response'),
      requestId: z.string().min(1).max(100),
      approve: z.boolean(),
      reason: z.string().min(1).max(2_000).optional(),
      body: bodySchema.optional(),
    }).refine((r) => r.approve || r.reason !== undefined, { path: ['reason'], message: 'a rejection needs a reason' }),
    z.object({ ...sendBase, type: z.literal('idle_notification'), body: bodySchema.optional(), summary: messageSummarySchema.optional() }),
  ]),
  response: z.object({
    messageId: z.string(),
    recipients: z.array(z.string()),
    requestId: z.string().optional(),
    suppressAutoReply: z.boolean().optional(),
  }),
});

export const inboxMessageSchema = z.object({
  messageId: z.string(),
  from: z.string(),
  type: messageTypeSchema,
  visibility: z.enum(['full', 'summary']),
  peerTo: z.string().optional(),
  body: z.string().nullable(),
  summary: z.string().optional(),
  topic: messageTopicSchema.optional(),
  requestId: z.string().optional(),
  approve: z.boolean().optional(),
  reason: z.string().optional(),
  suppressAutoReply: z.boolean().optional(),
  sentAt: z.string(),
});
export type InboxMessage = z.infer<typeof inboxMessageSchema>;

const unreadQueueSchema = z.object({
  messages: z.array(inboxMessageSchema),
  /** The messages as `<teammate-message>` blocks, ready for the prompt ('' when none). */
  rendered: z.string(),
  /** The inbox stream version the queue was read at. */
  throughVersion: z.string(),
});

/**
 * The unread queue, handed to the member's next inference and marked read in the same step. With
 * `throughVersion` (from a `peek-unread`), only the copies up to that inbox version are taken: what
 * was peeked, nothing delivered since.
 */
export const takeUnread = defineCommand({
  service: 'team-manager',
  name: 'take-unread',
  request: z.object({
    team: teamNameSchema,
    memberId: mailboxMemberIdSchema,
    throughVersion: z.string().regex(/^\d{1,19}$/, 'an inbox stream version (digits)').optional(),
  }),
  response: unreadQueueSchema,
});

/**
 * The unread queue without marking it read: lets an agent runtime ask for mail alongside its budget
 * check and mark it read (take-unread with the returned `throughVersion`) only once the model call
 * that carries it goes ahead.
 */
export const peekUnread = defineQuery({
  service: 'team-manager',
  name: 'peek-unread',
  request: z.object({ team: teamNameSchema, memberId: mailboxMemberIdSchema }),
  response: unreadQueueSchema,
});

/** The mailbox projection for UIs: a member's messages, newest last. */
export const listMessages = defineQuery({
  service: 'team-manager',
  name: 'list-messages',
  request: z.object({
    team: teamNameSchema,
    memberId: mailboxMemberIdSchema,
    unreadOnly: z.boolean().default(false),
    limit: z.number().int().min(1).max(1_000).default(100),
  }),
  response: z.object({ messages: z.array(inboxMessageSchema.extend({ read: z.boolean() })) }),
});
