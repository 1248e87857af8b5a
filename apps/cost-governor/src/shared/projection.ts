import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EventStore, ProcessorRunner, type RecordedEvent } from '@headspace/event-store';
import type { Pool, PoolClient } from 'pg';
import { decodeWanted } from './decode-wanted';

/** A read model fed by a ProcessorRunner: rows and checkpoint commit together; `rebuild()` replays from position 0. */
export abstract class Projection implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly runner: ProcessorRunner;
  protected readonly logger: Logger;

  protected constructor(pool: Pool, schema: string, store: EventStore, name: string, types: string[]) {
    this.logger = new Logger(name);
    this.runner = new ProcessorRunner({
      pool,
      schema,
      name,
      types,
      decode: decodeWanted(store, types),
      handle: (events, tx) => this.applyAll(events, tx),
      reset: (tx) => this.reset(tx),
      onError: (error) => this.logger.error(`${name}: ${(error as Error).message}`),
    });
  }

  protected abstract apply(event: RecordedEvent, tx: PoolClient): Promise<void>;

  /** A batch, in log order; a projection that can write a batch in a few statements overrides this. */
  protected async applyAll(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    for (const event of events) await this.apply(event, tx);
  }

  protected abstract reset(tx: PoolClient): Promise<void>;

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
