import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { NatsConnection } from '@nats-io/transport-node';
import { provisioningDrift } from '@headspace/messaging';
import type { Pool } from 'pg';
import { ShutdownState } from '../lifecycle/shutdown-state';
import { NATS_CONNECTION, PG_POOL } from '../platform.tokens';

const CHECK_TIMEOUT_MS = 2_000;

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    private readonly shutdown: ShutdownState,
  ) {}

  /** 200 while the process runs. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 when PostgreSQL answers and a NATS flush round-trips; 503 naming the failed checks. */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () =>
        this.indicators
          .check('postgres')
          .attempt(async () => {
            await this.pool.query('select 1');
          })
          .withTimeout(CHECK_TIMEOUT_MS),
      () =>
        this.indicators
          .check('nats')
          .attempt(async () => {
            if (this.nats.isClosed()) throw new Error('connection closed');
            if (this.nats.isDraining()) throw new Error('connection draining');
            await this.nats.flush();
            // Drift is reported, not a failure: the stream works with the operator's settings.
            return { server: this.nats.getServer(), streamDrift: provisioningDrift() };
          })
          .withTimeout(CHECK_TIMEOUT_MS),
      () => {
        const service = this.indicators.check('service');
        return this.shutdown.shuttingDown ? service.down('shutting down') : service.up();
      },
    ]);
  }
}
