import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { inboxOpened, messageDelivered, messagesRead, type EventData } from '@headspace/contracts';
import { EventStore, ProcessorRunner, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';

/**
 * The mailbox projection: `mailbox_inboxes` (open inboxes) and `mailbox_messages` (one row per
 * delivered copy, per recipient, with its read time). Rows and checkpoint commit together; every
 * value comes from the events, so a rebuild from position 0 gives the same rows.
 */
@Injectable()
export class MailboxProjection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly runner: ProcessorRunner;
  private readonly logger = new Logger(MailboxProjection.name);
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    store: EventStore,
  ) {
    this.q = quoteIdent(schema);
    this.runner = new ProcessorRunner({
      pool,
      schema,
      name: 'team-manager.mailbox-messages',
      types: [inboxOpened.type, messageDelivered.type, messagesRead.type],
      decode: (event) => store.validated(event),
      handle: (events, tx) => this.handle(events, tx),
      reset: async (tx) => {
        await tx.query(`DELETE FROM ${this.q}.mailbox_messages`);
        await tx.query(`DELETE FROM ${this.q}.mailbox_inboxes`);
      },
      onError: (error) => this.logger.error(error),
    });
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async handle(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    for (const event of events) {
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
}
