import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, getApproval, HeadspaceError } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { toApprovalView, type ApprovalRow } from '../approvals.projection';

/** `get-approval`: one approval and its decision, from the projection. */
@Injectable()
export class GetApprovalHandler extends ServedHandler<typeof getApproval> {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getApproval, nc);
    this.q = quoteIdent(schema);
  }

  async handle(request: z.output<typeof getApproval.request>) {
    const { rows } = await this.pool.query<ApprovalRow>(`SELECT * FROM ${this.q}.approvals WHERE approval_id = $1`, [request.approvalId]);
    if (!rows[0]) throw new HeadspaceError(ErrorCodes.approvalNotFound, `No approval "${request.approvalId}"`, { field: 'approvalId' });
    return toApprovalView(rows[0]);
  }
}
