import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getTaskCost } from '@headspace/contracts';
import type { z } from 'zod';
import { ReportingQueries } from '../reporting.queries';

/** `get-task-cost`: a task's tokens and USD (seed 003 Req 4.8). */
@Controller()
export class GetTaskCostHandler {
  constructor(
    private readonly queries: ReportingQueries,
  ) {}

  @MessagePattern(getTaskCost)
  async handle(request: z.output<typeof getTaskCost.request>) {
    return this.queries.taskCost(request.taskId);
  }
}
