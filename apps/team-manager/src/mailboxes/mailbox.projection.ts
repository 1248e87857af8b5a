import { Injectable } from '@nestjs/common';
import { inboxOpened, messageDelivered, messagesRead, type EventData } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/**
 * The mailbox projection: `mailbox_inboxes` (open inboxes) and `mailbox_messages` (one row per
 * delivered copy, per recipient, with its read time).
 */
@Injectable()
export class MailboxProjection extends Projection {
  constructor(store: EventStore) {
    super(store, {
      name: 'team-manager.mailbox-messages',
      types: [inboxOpened.type, messageDelivered.type, messagesRead.type],
      tables: ['mailbox_messages', 'mailbox_inboxes'],
    });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    switch (event.type) {
      case inboxOpened.type: {
        const d = event.data as EventData<typeof inboxOpened>;
        await tx.query(
          `INSERT INTO ${this.q}.mailbox_inboxes (team, member_id, role, opened_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [d.team, d.memberId, d.role, d.openedAt],
        );
        break;
      }
      case messageDelivered.type: {
        const d = event.data as EventData<typeof messageDelivered>;
        await tx.query(
          `INSERT INTO ${this.q}.mailbox_messages (team, recipient, message_id, inbox_version, sender, type, visibility, peer_to, body, summary,
             topic, request_id, approve, reason, suppress_auto_reply, sent_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING`,
          [
            d.team, d.recipient, d.messageId, event.streamVersion.toString(), d.from, d.type, d.visibility, d.peerTo ?? null, d.body,
            d.summary ?? null, d.topic ?? null, d.requestId ?? null, d.approve ?? null, d.reason ?? null, d.suppressAutoReply ?? null, d.sentAt,
          ],
        );
        break;
      }
      case messagesRead.type: {
        const d = event.data as EventData<typeof messagesRead>;
        await tx.query(
          `UPDATE ${this.q}.mailbox_messages SET read_at = $4
            WHERE team = $1 AND recipient = $2 AND message_id = ANY ($3::uuid[]) AND read_at IS NULL`,
          [d.team, d.memberId, d.messageIds, d.readAt],
        );
        await tx.query(
          `UPDATE ${this.q}.mailbox_inboxes SET read_through_version = GREATEST(read_through_version, $3::bigint) WHERE team = $1 AND member_id = $2`,
          [d.team, d.memberId, d.throughVersion],
        );
        break;
      }
    }
  }
}
