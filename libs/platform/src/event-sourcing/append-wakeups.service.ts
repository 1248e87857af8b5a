import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AppendWakeups } from '@headspace/event-store';
import type { Pool } from 'pg';
import type { BaseConfig } from '../config/base-config.schema';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA } from '../platform.tokens';

/** The service's cross-replica wake-up (libs/event-store append-wakeups.ts), on unless HS_APPEND_WAKEUPS=false. */
@Injectable()
export class AppendWakeupsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AppendWakeups');
  readonly wakeups?: AppendWakeups;

  constructor(@Inject(APP_CONFIG) config: BaseConfig, @Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    if (config.HS_APPEND_WAKEUPS) this.wakeups = new AppendWakeups({ pool, schema, log: (line) => this.logger.warn(line) });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.wakeups?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.wakeups?.stop();
  }
}
