import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listInboxes } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { z } from 'zod';

type Row = { member_id: string; role: 'lead' | 'member'; opened_at: Date; messages: string; unread: string; last_message_at: Date | null };

/** `hs.qry.team-manager.list-inboxes`: a team's open inboxes from the mailbox projection, with message and unread counts. */
@Controller()
export class ListInboxesHandler {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @MessagePattern(listInboxes)
  async handle(@Payload() { team }: z.output<typeof listInboxes.request>): Promise<z.output<typeof listInboxes.response>> {
    const { rows } = await this.pool.query<Row>(
      `SELECT i.member_id, i.role, i.opened_at,
              count(m.message_id) AS messages,
              count(m.message_id) FILTER (WHERE m.read_at IS NULL) AS unread,
              max(m.sent_at) AS last_message_at
         FROM ${this.q}.mailbox_inboxes i
         LEFT JOIN ${this.q}.mailbox_messages m ON m.team = i.team AND m.recipient = i.member_id
        WHERE i.team = $1
        GROUP BY i.member_id, i.role, i.opened_at
        ORDER BY i.member_id`,
      [team],
    );
    return {
      inboxes: rows.map((r) => ({
        memberId: r.member_id,
        role: r.role,
        openedAt: r.opened_at.toISOString(),
        messages: Number(r.messages),
        unread: Number(r.unread),
        lastMessageAt: r.last_message_at ? r.last_message_at.toISOString() : null,
      })),
    };
  }
}
