import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SessionSandbox, type SandboxStatus } from './session-sandbox.service';

/** `GET /health/sandbox`: enforced (200), off by the operator (200, with the warning), or unavailable (503, why). */
@Controller('health')
export class SandboxHealthController {
  constructor(private readonly sandbox: SessionSandbox) {}

  @Get('sandbox')
  async get(@Res({ passthrough: true }) reply: FastifyReply): Promise<SandboxStatus> {
    const status = await this.sandbox.status();
    if (status.status === 'unavailable') void reply.status(503);
    return status;
  }
}
