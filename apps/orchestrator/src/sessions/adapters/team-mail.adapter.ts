import { peekUnread, takeUnread } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { MailPort } from '../run-session/session-ports';

/**
 * Unread mail from the team-manager, already rendered as `<teammate-message>` blocks: peeked
 * alongside the budget check, marked read (up to the version peeked, so nothing delivered since is
 * lost) once the call carrying it goes ahead. The runner records the rendered text with the turn it
 * went into, so a resumed session sees the same conversation; mail marked read by a turn whose call
 * never completed is in no recorded turn — the team-manager keeps it in the member's history
 * (list-messages) for the operator.
 */
export function teamMailAdapter(nc: NatsConnection, team: string, memberId: string, sessionId: string): MailPort {
  return {
    async peek() {
      const { messages, rendered, throughVersion } = await request(nc, peekUnread, { team, memberId });
      return { messageIds: messages.map((m) => m.messageId), throughVersion, ...(messages.length ? { text: rendered } : {}) };
    },
    async markRead(mail, turn) {
      if (mail.messageIds.length === 0) return;
      await request(nc, takeUnread, { team, memberId, ...(mail.throughVersion ? { throughVersion: mail.throughVersion } : {}) }, { commandId: `${sessionId}:mail:${turn}` });
    },
  };
}
