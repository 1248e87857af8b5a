import type { Attributes, ObservableGauge, ObservableResult } from '@opentelemetry/api';

export interface CachedGaugeSample {
  value: number;
  attributes: Attributes;
}

export interface CachedGaugeOptions {
  gauge: ObservableGauge;
  /** Named in the one warning line a failure streak writes. */
  label: string;
  /** How old the samples may be before a collection reads them again. */
  maxAgeMs: number;
  /** Every sample to observe; a query over a read model, typically. */
  read: () => Promise<CachedGaugeSample[]>;
}

/**
 * An observable gauge over something costly to read (a grouped count of a read model): read at
 * collection time, at most once per `maxAgeMs` however often Prometheus scrapes, concurrent
 * collections sharing one read. After a failed read the last samples stay and one warning is
 * written per failure streak.
 */
export class CachedGauge {
  private samples?: { at: number; list: CachedGaugeSample[] };
  private refreshing?: Promise<void>;
  private failing = false;

  constructor(private readonly options: CachedGaugeOptions) {}

  start(): void {
    this.options.gauge.addCallback(this.observe);
  }

  stop(): void {
    this.options.gauge.removeCallback(this.observe);
  }

  private readonly observe = async (result: ObservableResult): Promise<void> => {
    if (!this.samples || Date.now() - this.samples.at >= this.options.maxAgeMs) {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    for (const { value, attributes } of this.samples?.list ?? []) result.observe(value, attributes);
  };

  private async refresh(): Promise<void> {
    try {
      this.samples = { at: Date.now(), list: await this.options.read() };
      this.failing = false;
    } catch (error) {
      if (!this.failing) console.warn(`[${this.options.label}] reading failed: ${(error as Error).message}`);
      this.failing = true;
    }
  }
}
