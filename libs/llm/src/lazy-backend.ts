import type { PriceTable } from '@headspace/contracts';
import { PriceTableCache } from './client/price-table-cache';
import { describeLlmBackend } from './backend';
import { openLlmBackend, type OpenLlmBackend, type OpenLlmBackendOptions } from './open-backend';

export interface LazyLlmBackendOptions extends Omit<OpenLlmBackendOptions, 'prices' | 'log'> {
  /** The cost governor's price table, fetched in the background, for `headspace.cost.usd` on `chat` spans. */
  fetchPrices?: () => Promise<PriceTable>;
  logger: { log(line: string): void; warn(line: string): void };
}

/**
 * A service's model backend, opened once on first use (Claude with ANTHROPIC_API_KEY, else the
 * simulator in-process); a failed open is not kept, so the next call tries again. Shared by the
 * orchestrator's sessions and Leon's triage and ladder so both cost their spans the same way.
 */
export class LazyLlmBackend {
  private opening?: Promise<OpenLlmBackend>;
  private readonly prices?: PriceTableCache;

  constructor(private readonly options: LazyLlmBackendOptions) {
    if (options.fetchPrices) this.prices = new PriceTableCache(options.fetchPrices, undefined, (line) => options.logger.warn(line));
  }

  /** The price table in hand (none before the governor first answered), refreshed in the background. */
  readonly priceTable = (): PriceTable | undefined => this.prices?.current();

  get(): Promise<OpenLlmBackend> {
    if (this.opening) return this.opening;
    const { fetchPrices: _prices, logger, ...open } = this.options;
    // the first call's span is costed too: the table is asked for while the backend opens (a
    // governor that does not answer only leaves spans uncosted until a later refresh)
    const opening = Promise.all([
      openLlmBackend({ ...open, log: (line) => logger.log(line), ...(this.prices ? { prices: this.prices.current } : {}) }),
      this.prices?.refresh(),
    ]).then(([opened]) => {
      logger.log(`model backend: ${JSON.stringify(describeLlmBackend(opened.backend))}`);
      return opened;
    });
    this.opening = opening;
    opening.catch(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    return opening;
  }

  async close(): Promise<void> {
    await (await this.opening?.catch(() => undefined))?.close();
  }
}
