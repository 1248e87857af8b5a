import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { migrate } from '@headspace/event-store';
import { shutdownTelemetry } from '@headspace/telemetry';
import type { Pool } from 'pg';
import type { BaseConfig } from '../config/base-config.schema';
import { APP_CONFIG, MIGRATIONS_DIRS, NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '../platform.tokens';
import { ShutdownState } from './shutdown-state';
import { within } from './within';

/**
 * Migrates on init; on shutdown (after other modules stopped their workers in
 * beforeApplicationShutdown) drains NATS, ends the pool and flushes telemetry, all within
 * SHUTDOWN_TIMEOUT_MS of the moment shutdown began.
 */
@Injectable()
export class PlatformLifecycle implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Platform');

  constructor(
    @Inject(APP_CONFIG) private readonly config: BaseConfig,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
    @Inject(MIGRATIONS_DIRS) private readonly migrationsDirs: string[],
    private readonly state: ShutdownState,
  ) {}

  async onModuleInit(): Promise<void> {
    void this.watchNatsStatus();
    if (!this.config.MIGRATE_ON_START) return;
    const applied = await migrate(this.pool, { schema: this.schema, dirs: this.migrationsDirs });
    this.logger.log(
      applied.length ? `migrated schema ${this.schema}: ${applied.join(', ')}` : `schema ${this.schema} is up to date`,
    );
  }

  beforeApplicationShutdown(signal?: string): void {
    this.state.begin(this.config.SHUTDOWN_TIMEOUT_MS);
    this.logger.log(`shutting down${signal ? ` on ${signal}` : ''}`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.state.begin(this.config.SHUTDOWN_TIMEOUT_MS);
    const remaining = () => this.state.remainingMs(this.config.SHUTDOWN_TIMEOUT_MS);

    if (!this.nats.isClosed()) {
      const drained = await within(this.nats.drain(), remaining()).catch((error: Error) => {
        this.logger.warn(`NATS drain failed: ${error.message}`);
        return false;
      });
      if (!drained) await this.nats.close().catch(() => undefined);
    }
    if (!(await within(this.pool.end(), remaining()))) {
      this.logger.warn('PostgreSQL pool did not close before the shutdown timeout');
    }
    await within(shutdownTelemetry(), Math.max(remaining(), 1000)).catch(() => false);
    const elapsed = this.config.SHUTDOWN_TIMEOUT_MS - remaining();
    this.logger.log(`connections closed ${elapsed} ms after shutdown began`);
  }

  private async watchNatsStatus(): Promise<void> {
    for await (const status of this.nats.status()) {
      if (status.type === 'disconnect' || status.type === 'error') {
        this.logger.warn(`NATS ${status.type}: ${JSON.stringify(status)}`);
      } else if (status.type === 'reconnect') {
        this.logger.log(`NATS reconnected: ${JSON.stringify(status)}`);
      }
    }
  }
}
