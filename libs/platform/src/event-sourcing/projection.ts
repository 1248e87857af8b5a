import { quoteIdent, type EventStore, type RecordedEvent } from '@headspace/event-store';
import type { PoolClient } from 'pg';
import { EventProcessor, type ProcessorDeclaration } from './event-processor';

export interface ProjectionDeclaration extends ProcessorDeclaration {
  /** Its tables in the service schema: a rebuild empties exactly these, and rebuilt == live compares them. */
  tables: readonly string[];
}

/**
 * A read model: tables in the service schema written from its events. Every value comes from the
 * events (never the clock), so a rebuild from position 0 gives the rows the live model has.
 * `apply` writes one event's rows; a model that writes a batch in a few statements overrides `handle`.
 */
export abstract class Projection<E extends RecordedEvent = RecordedEvent> extends EventProcessor<E> {
  readonly tables: readonly string[];

  protected constructor(store: EventStore, declaration: ProjectionDeclaration) {
    super(store, declaration);
    this.tables = declaration.tables;
  }

  protected abstract apply(event: E, tx: PoolClient): Promise<void>;

  protected async handle(events: E[], tx: PoolClient): Promise<void> {
    for (const event of events) await this.apply(event, tx);
  }

  /** Empties its tables, in the rebuild's transaction (which also resets its checkpoint). */
  protected override async reset(tx: PoolClient): Promise<void> {
    await tx.query(`TRUNCATE ${this.tables.map((t) => this.qualified(t)).join(', ')}`);
  }

  /** Replays the log from position 0 into emptied tables; needs the lease (another live instance holding it refuses). */
  rebuild(): Promise<void> {
    return this.runner.rebuild();
  }

  /** A table of the service schema, quoted for SQL. */
  protected qualified(name: string): string {
    return `${this.q}.${quoteIdent(name)}`;
  }
}
