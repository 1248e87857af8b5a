import { Body, Controller, Get, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { createTeam, listKnownTeams, parseOrThrow } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';

/** Teams over HTTP: commands go to the team-manager, the directory comes from the orchestrator. */
@Controller('api/v1/teams')
export class TeamsController {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown, @Headers('idempotency-key') idempotencyKey?: string) {
    const command = parseOrThrow(createTeam.request, body ?? {}, 'request body');
    return request(this.nc, createTeam, command, { commandId: idempotencyKey || undefined });
  }

  /** Teams the orchestrator knows: proves an event reached another service's projection. */
  @Get('known')
  known() {
    return request(this.nc, listKnownTeams, {});
  }
}
