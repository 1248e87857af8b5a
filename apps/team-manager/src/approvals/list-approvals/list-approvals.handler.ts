import { Inject, Injectable } from '@nestjs/common';
import { listApprovals } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { toApprovalView, type ApprovalRow } from '../approvals.projection';

/** `list-approvals`: a team's approvals (pending by default), optionally of one kind, oldest first. */
@Injectable()
export class ListApprovalsHandler extends ServedHandler<typeof listApprovals> {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(listApprovals, nc);
    this.q = quoteIdent(schema);
  }

  async handle(request: z.output<typeof listApprovals.request>) {
    const { rows } = await this.pool.query<ApprovalRow>(
      `SELECT * FROM ${this.q}.approvals
        WHERE team = $1 AND ($2::text IS NULL OR kind = $2) AND ($3::text = 'all' OR status = $3)
        ORDER BY seq LIMIT $4`,
      [request.team, request.kind ?? null, request.status, request.limit],
    );
    return { approvals: rows.map(toApprovalView) };
  }
}
