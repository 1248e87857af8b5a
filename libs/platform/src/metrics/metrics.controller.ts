import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Req, Res } from '@nestjs/common';
import { metricsRequestHandler } from '@headspace/telemetry';

/** The parts of Fastify's request/reply used here (kept structural: no direct fastify import). */
interface RawRequest {
  raw: IncomingMessage;
}
interface RawReply {
  raw: ServerResponse;
  hijack(): void;
}

@Controller()
export class MetricsController {
  /** Prometheus text exposition, written by the OTel exporter straight to the raw response. */
  @Get('metrics')
  metrics(@Req() req: RawRequest, @Res() reply: RawReply): void {
    reply.hijack();
    metricsRequestHandler(req.raw, reply.raw);
  }
}
