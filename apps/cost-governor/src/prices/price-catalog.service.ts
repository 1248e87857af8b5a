import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, type EventData, type EventMetadata, type ModelRetirementWarning, type priceTablePublished, type PriceTable } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import { DEFAULT_RETIREMENT_WARNING_DAYS, RetirementLog, retirementWarning, retirementWarnings } from './model-retirement';
import { parsePriceTable, PriceBook } from './price-book';

/** The shipped price table (apps/cost-governor/config/prices.yaml, from src or dist alike). */
export const DEFAULT_PRICES_FILE = join(__dirname, '..', '..', 'config', 'prices.yaml');

export const PRICES_STREAM = 'prices-table';

type Published = RecordedEvent & { type: 'price-table.published'; data: EventData<typeof priceTablePublished> };

/**
 * The price table in effect: the newest `price-table.published` in the log. At start the configured
 * file is validated and published when its version is newer than the log's, so a release can ship
 * prices and `prices.update` can change them without one. `fresh()` checks the stream version (one
 * primary-key lookup) so every instance prices with a table the moment it is published.
 */
@Injectable()
export class PriceCatalog implements OnModuleInit {
  private book?: PriceBook;
  private streamVersion = 0n;
  private refreshing?: Promise<void>;
  private readonly retirementLog = new RetirementLog((line) => new Logger('PriceCatalog').warn(line));

  constructor(
    private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: { HS_PRICES_FILE?: string; HS_MODEL_RETIREMENT_WARN_DAYS?: number },
  ) {}

  /** Days before a model's `retiresOn` its use is warned about. */
  get retirementWarningDays(): number {
    return this.config.HS_MODEL_RETIREMENT_WARN_DAYS ?? DEFAULT_RETIREMENT_WARNING_DAYS;
  }

  /** The table's models retired or retiring within the warning window on `at`. */
  retirementWarnings(at: Date = new Date()): ModelRetirementWarning[] {
    return retirementWarnings(this.current().table, at, this.retirementWarningDays);
  }

  /** Logs (once per model and process) that `model`, about to be used, is retired or retiring. */
  noteUse(book: PriceBook, model: string, at: Date = new Date()): void {
    this.retirementLog.note(retirementWarning(book.resolve(model, at), at, this.retirementWarningDays));
  }

  async onModuleInit(): Promise<void> {
    const file = this.config.HS_PRICES_FILE ?? DEFAULT_PRICES_FILE;
    const table = parsePriceTable(readFileSync(file, 'utf8'), file);
    await this.refresh();
    if (!this.book || this.book.version < table.version) {
      await this.publish(table, 'file', 'system:price-file', `price-file:v${table.version}`, {});
    }
    for (const warning of this.retirementWarnings()) this.retirementLog.note(warning);
  }

  /**
   * The newest published table, checked against the log now. Concurrent callers share one look
   * (single flight), so a burst of requests costs one primary-key query, not one each.
   */
  async fresh(): Promise<PriceBook> {
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    await this.refreshing;
    return this.current();
  }

  /** The table as of the prices stream at `version`, which the caller read with other streams: no query unless a newer table was published. */
  async syncTo(version: bigint): Promise<PriceBook> {
    if (version !== this.streamVersion || !this.book) await this.refresh();
    return this.current();
  }

  /** The prices stream's version the current table was read at. */
  get version(): bigint {
    return this.streamVersion;
  }

  current(): PriceBook {
    if (!this.book) throw new HeadspaceError(ErrorCodes.internal, 'price table not loaded yet');
    return this.book;
  }

  async publish(table: PriceTable, source: 'file' | 'command', publishedBy: string, commandId: string, metadata: EventMetadata): Promise<bigint> {
    const prior = await this.store.priorResult(PRICES_STREAM, commandId);
    if (prior) return prior.nextExpectedVersion;
    await this.refresh();
    if (this.book && table.version <= this.book.version) {
      throw new HeadspaceError(ErrorCodes.priceVersionNotNewer, `Price table v${table.version} is not newer than v${this.book.version}`, { field: 'table.version' });
    }
    const result = await this.store.append(
      PRICES_STREAM,
      [{ type: 'price-table.published', data: { version: table.version, table, source, publishedBy, publishedAt: new Date().toISOString() } }],
      { expected: this.streamVersion === 0n ? 'no-stream' : this.streamVersion, commandId, metadata },
    );
    await this.refresh();
    return result.nextExpectedVersion;
  }

  /** Loads the newest published table when the stream moved. */
  async refresh(): Promise<void> {
    const version = (await this.store.streamVersion(PRICES_STREAM)) ?? 0n;
    if (version === this.streamVersion && this.book) return;
    if (version === 0n) return;
    const [latest] = (await this.store.readStream(PRICES_STREAM, { fromVersion: version })) as Published[];
    if (latest && (!this.book || latest.data.table.version >= this.book.version)) this.book = new PriceBook(latest.data.table);
    this.streamVersion = version;
  }
}
