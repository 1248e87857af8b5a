import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { reportException } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { InternalReports } from '../internal-reports.service';

/** `report-exception` (every Headspace service): its own unhandled errors and its sessions' hook failures. */
@Controller()
export class ReportExceptionHandler {
  constructor(private readonly reports: InternalReports) {}

  @MessagePattern(reportException)
  handle(@Payload() r: z.output<typeof reportException.request>, @Ctx() ctx: RequestContext) {
    return this.reports.report(r, ctx);
  }
}
