import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, getPersonaRequest, HeadspaceError } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';

/** `get-persona-request`: where a persona request stands (queued, granted with its lease, released), from the projection. */
@Injectable()
export class GetPersonaRequestHandler extends ServedHandler<typeof getPersonaRequest> {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getPersonaRequest, nc);
    this.q = quoteIdent(schema);
  }

  async handle(request: z.output<typeof getPersonaRequest.request>) {
    const { rows } = await this.pool.query<{ request_id: string; pool: string; status: 'queued' | 'granted' | 'released' | 'cancelled'; persona_id: string | null; lease_id: string | null }>(
      `SELECT request_id, pool, status, persona_id, lease_id FROM ${this.q}.persona_requests WHERE request_id = $1`,
      [request.requestId],
    );
    const row = rows[0];
    if (!row) throw new HeadspaceError(ErrorCodes.personaRequestNotFound, `No persona request "${request.requestId}"`, { field: 'requestId' });
    return {
      requestId: row.request_id,
      pool: row.pool,
      status: row.status,
      ...(row.persona_id ? { personaId: row.persona_id } : {}),
      ...(row.lease_id ? { leaseId: row.lease_id } : {}),
    };
  }
}
