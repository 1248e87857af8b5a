import type { PriceTable } from '@headspace/contracts';

/** How old the table may get before the next read asks the cost governor again (in the background). */
export const PRICE_TABLE_MAX_AGE_MS = 5 * 60_000;

/**
 * The cost governor's published price table for the `chat` spans (`headspace.cost.usd`,
 * LlmClientOptions.prices): `current()` is synchronous (a span is ending), answers with the table in
 * hand and refreshes it in the background once it is older than maxAgeMs. Until the first answer (or
 * while the governor is unreachable) spans carry no cost rather than a guessed one. The budget's
 * own figures stay the governor's: this is the same arithmetic on the same table, for traces.
 */
export class PriceTableCache {
  private table?: PriceTable;
  private fetchedAt = 0;
  private fetching?: Promise<void>;
  private failing = false;

  constructor(
    private readonly fetchTable: () => Promise<PriceTable>,
    private readonly maxAgeMs = PRICE_TABLE_MAX_AGE_MS,
    private readonly log: (line: string) => void = (line) => console.warn(line),
  ) {}

  /** Fetches the table now (once at a time); resolves when it is in hand or the fetch failed. */
  refresh(): Promise<void> {
    this.fetching ??= this.fetchTable()
      .then(
        (table) => {
          this.table = table;
          this.fetchedAt = Date.now();
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing) this.log(`price table for chat span costs unavailable: ${(error as Error).message}`);
          this.failing = true;
          this.fetchedAt = Date.now(); // retried after maxAgeMs, not on every span
        },
      )
      .finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  readonly current = (): PriceTable | undefined => {
    if (Date.now() - this.fetchedAt >= this.maxAgeMs) void this.refresh();
    return this.table;
  };
}
