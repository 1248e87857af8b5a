import { Inject, Injectable } from '@nestjs/common';
import { getTaskCost } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { ReportingQueries } from '../reporting.queries';

/** `get-task-cost`: a task's tokens and USD (seed 003 Req 4.8). */
@Injectable()
export class GetTaskCostHandler extends ServedHandler<typeof getTaskCost> {
  constructor(
    private readonly queries: ReportingQueries,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getTaskCost, nc);
  }

  async handle(request: z.output<typeof getTaskCost.request>) {
    return this.queries.taskCost(request.taskId);
  }
}
