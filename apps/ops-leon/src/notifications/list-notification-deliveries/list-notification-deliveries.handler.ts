import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { listNotificationDeliveries } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { z } from 'zod';

interface DeliveryRow {
  delivery_id: string;
  channel: 'webhook' | 'email';
  target: string;
  group_id: string;
  to_state: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_error: string | null;
  scheduled_at: Date;
}

/** `list-notification-deliveries`: a project's latest deliveries with their state, newest first. */
@Controller()
export class ListNotificationDeliveriesHandler {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @MessagePattern(listNotificationDeliveries)
  async handle(@Payload() request: z.output<typeof listNotificationDeliveries.request>) {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT delivery_id, channel, target, group_id, to_state, state, attempts, last_error, scheduled_at
         FROM ${this.q}.notification_deliveries WHERE project = $1 ORDER BY scheduled_at DESC, delivery_id LIMIT $2`,
      [request.project, request.limit],
    );
    return {
      items: rows.map((r) => ({
        deliveryId: r.delivery_id,
        channel: r.channel,
        target: r.target,
        groupId: r.group_id,
        to: r.to_state,
        state: r.state,
        attempts: r.attempts,
        lastError: r.last_error,
        scheduledAt: r.scheduled_at.toISOString(),
      })),
    };
  }
}
