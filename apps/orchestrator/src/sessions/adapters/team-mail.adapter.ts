import { takeUnread } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { MailPort } from '../run-session/session-ports';

/**
 * Unread mail from the team-manager, already rendered as `<teammate-message>` blocks and marked read
 * there. The runner records the rendered text with the turn it went into, so a resumed session sees
 * the same conversation; mail taken by a turn whose call never completed is in no recorded turn —
 * the team-manager keeps it in the member's history (list-messages) for the operator.
 */
export function teamMailAdapter(nc: NatsConnection, team: string, memberId: string): MailPort {
  return {
    async takeUnread() {
      const { messages, rendered } = await request(nc, takeUnread, { team, memberId });
      return { messageIds: messages.map((m) => m.messageId), ...(messages.length ? { text: rendered } : {}) };
    },
  };
}
