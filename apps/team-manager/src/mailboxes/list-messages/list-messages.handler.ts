import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { listMessages, type InboxMessage } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';

interface Row {
  message_id: string;
  sender: string;
  type: InboxMessage['type'];
  visibility: InboxMessage['visibility'];
  peer_to: string | null;
  body: string | null;
  summary: string | null;
  topic: InboxMessage['topic'] | null;
  request_id: string | null;
  approve: boolean | null;
  reason: string | null;
  suppress_auto_reply: boolean | null;
  sent_at: Date;
  read_at: Date | null;
}

/** `hs.qry.team-manager.list-messages`: a member's messages from the mailbox projection, in inbox order (UI preview). */
@Injectable()
export class ListMessagesHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, listMessages, (request) => this.handle(request));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  async handle(request: z.output<typeof listMessages.request>): Promise<z.output<typeof listMessages.response>> {
    const { rows } = await this.pool.query<Row>(
      `SELECT * FROM (
         SELECT message_id, sender, type, visibility, peer_to, body, summary, topic, request_id, approve, reason, suppress_auto_reply,
                sent_at, read_at, inbox_version
           FROM ${this.q}.mailbox_messages
          WHERE team = $1 AND recipient = $2 AND ($3::boolean IS FALSE OR read_at IS NULL)
          ORDER BY inbox_version DESC LIMIT $4) latest
        ORDER BY inbox_version`,
      [request.team, request.memberId, request.unreadOnly, request.limit],
    );
    const optional = <T>(key: string, value: T | null) => (value === null ? {} : { [key]: value });
    return {
      messages: rows.map((r) => ({
        messageId: r.message_id,
        from: r.sender,
        type: r.type,
        visibility: r.visibility,
        body: r.body,
        sentAt: r.sent_at.toISOString(),
        ...optional('peerTo', r.peer_to),
        ...optional('summary', r.summary),
        ...optional('topic', r.topic),
        ...optional('requestId', r.request_id),
        ...optional('approve', r.approve),
        ...optional('reason', r.reason),
        ...optional('suppressAutoReply', r.suppress_auto_reply),
        read: r.read_at !== null,
      })),
    };
  }
}
