import type { EventData, InboxMessage, messageDelivered, messagesRead } from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';

/**
 * One member's inbox (stream `inbox-<team>/<member>`): delivered copies and read markers. The
 * take of the unread queue decides against this stream and appends its read marker with the exact
 * version it read, so a copy delivered during the take makes the append fail and the take re-run:
 * every copy is returned exactly once.
 */
export type InboxEvent =
  | { type: 'mailbox.message-delivered'; data: EventData<typeof messageDelivered> }
  | { type: 'mailbox.messages-read'; data: EventData<typeof messagesRead> };

export interface InboxState {
  /** Unread copies, in delivery order. */
  unread: InboxMessage[];
}

export interface TakeUnread {
  type: 'take-unread';
  team: string;
  memberId: string;
  /** The stream version the state was read at: the read marker covers everything up to it. */
  throughVersion: bigint;
  now: string;
}

export function toInboxMessage(d: EventData<typeof messageDelivered>): InboxMessage {
  const optional = <K extends keyof InboxMessage>(key: K, value: InboxMessage[K] | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    messageId: d.messageId,
    from: d.from,
    type: d.type,
    visibility: d.visibility,
    body: d.body,
    sentAt: d.sentAt,
    ...optional('peerTo', d.peerTo),
    ...optional('summary', d.summary),
    ...optional('topic', d.topic),
    ...optional('requestId', d.requestId),
    ...optional('approve', d.approve),
    ...optional('reason', d.reason),
    ...optional('suppressAutoReply', d.suppressAutoReply),
  };
}

export const inboxDecider: Decider<TakeUnread, InboxState, InboxEvent> = {
  initialState: () => ({ unread: [] }),

  decide(command, state) {
    if (state.unread.length === 0) return [];
    return [
      {
        type: 'mailbox.messages-read',
        data: {
          team: command.team,
          memberId: command.memberId,
          messageIds: state.unread.map((m) => m.messageId),
          throughVersion: command.throughVersion.toString(),
          readAt: command.now,
        },
      },
    ];
  },

  evolve(state, event) {
    switch (event.type) {
      case 'mailbox.message-delivered':
        return { unread: [...state.unread, toInboxMessage(event.data)] };
      case 'mailbox.messages-read': {
        const read = new Set(event.data.messageIds);
        return { unread: state.unread.filter((m) => !read.has(m.messageId)) };
      }
      default:
        return state;
    }
  },
};
