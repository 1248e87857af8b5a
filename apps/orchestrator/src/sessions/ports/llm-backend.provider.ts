import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { getPrices } from '@headspace/contracts';
import { describeLlmBackend, openLlmBackend, PriceTableCache, type OpenLlmBackend } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../../config';

/**
 * The model backend of this orchestrator, opened once on first use: Claude when ANTHROPIC_API_KEY
 * is set, else the Messages-API simulator started in-process (the same SDK code path, offline).
 */
@Injectable()
export class LlmBackendProvider implements OnApplicationShutdown {
  private readonly logger = new Logger('LlmBackend');
  private opening?: Promise<OpenLlmBackend>;

  /** The cost governor's price table, for the USD cost on `chat` spans. */
  private readonly prices: PriceTableCache;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    this.prices = new PriceTableCache(async () => (await request(nc, getPrices, {})).table, undefined, (line) => this.logger.warn(line));
  }

  /** The table in hand (refreshed in the background), for costs and the long-context step. */
  readonly priceTable = () => this.prices.current();

  get simulated(): boolean {
    return !this.config.ANTHROPIC_API_KEY;
  }

  get(): Promise<OpenLlmBackend> {
    if (!this.opening) void this.prices.refresh();
    this.opening ??= openLlmBackend({
      env: {
        ANTHROPIC_API_KEY: this.config.ANTHROPIC_API_KEY,
        ANTHROPIC_BASE_URL: this.config.ANTHROPIC_BASE_URL,
        HS_SIMULATOR_SCENARIOS: this.config.HS_SIMULATOR_SCENARIOS,
        HS_SIMULATOR_LATENCY: this.config.HS_SIMULATOR_LATENCY,
      },
      timeoutMs: this.config.LLM_TIMEOUT_MS,
      maxRetries: this.config.LLM_MAX_RETRIES,
      log: (line) => this.logger.log(line),
      prices: this.prices.current,
    }).then((opened) => {
      this.logger.log(`model backend: ${JSON.stringify(describeLlmBackend(opened.backend))}`);
      return opened;
    });
    return this.opening;
  }

  async onApplicationShutdown(): Promise<void> {
    await (await this.opening?.catch(() => undefined))?.close();
  }
}
