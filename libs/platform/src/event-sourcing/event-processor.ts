import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ProcessorRunner, quoteIdent, type EventStore, type ProcessorOptions, type RecordedEvent } from '@headspace/event-store';
import type { PoolClient } from 'pg';

/** What a processor declares about itself; the runner's tuning passes through for the few that need it. */
export interface ProcessorDeclaration extends Pick<ProcessorOptions, 'batchSize' | 'pollIntervalMs' | 'wakeOnAppend' | 'leaseMs' | 'instanceId'> {
  /** Unique within the service's schema: it keys the checkpoint and the lease. */
  name: string;
  /** The event types it handles; only these are validated against their contract and reach `handle`. */
  types: readonly string[];
}

/**
 * Every read model and process manager of a service's own log: it declares a name, its event types
 * and how a batch is handled; the base runs it on a ProcessorRunner, started on bootstrap and stopped
 * on shutdown. One instance across all replicas handles the log at a time (the runner's lease), and
 * `handle`'s writes through `tx` commit with the checkpoint. Process managers extend this directly;
 * read models extend Projection, which adds their tables and the rebuild.
 *
 * `runner` stays public: the read-position gate finds the service's read models through it, and
 * specs wait on it. Handlers with no effects in the database that would rather not hold a batch
 * transaction open (the relay) use ProcessorRunner directly with `handleOutsideTransaction`.
 */
export abstract class EventProcessor<E extends RecordedEvent = RecordedEvent> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly runner: ProcessorRunner;
  protected readonly logger: Logger;
  /** The service schema, quoted for SQL. */
  protected readonly q: string;

  protected constructor(
    protected readonly store: EventStore,
    declaration: ProcessorDeclaration,
  ) {
    const { name, types, ...tuning } = declaration;
    const wanted = new Set(types);
    this.q = quoteIdent(store.schema);
    this.logger = new Logger(name);
    this.runner = new ProcessorRunner({
      ...tuning,
      pool: store.pool,
      schema: store.schema,
      name,
      types: [...types],
      // The runner decodes every event it reads, not only its types; the contract check is most of that cost.
      decode: (event) => (wanted.has(event.type) ? store.validated(event) : event),
      handle: (events, tx) => this.handle(events as E[], tx),
      reset: (tx) => this.reset(tx),
      onError: (error) => this.logger.error(`${name}: ${(error as Error).message}`),
    });
  }

  /** A batch of its events, in log order, inside the transaction that advances its checkpoint. */
  protected abstract handle(events: E[], tx: PoolClient): Promise<void>;

  /**
   * A process manager's effects (commands sent, alerts raised) must not happen twice, so replaying
   * its log from 0 is refused; the rebuild's transaction rolls back with the checkpoint untouched.
   */
  protected async reset(_tx: PoolClient): Promise<void> {
    throw new Error(`${this.runner.name} is not a read model: it is never rebuilt`);
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
