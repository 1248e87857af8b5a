import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { getPrices, type PriceTable } from '@headspace/contracts';
import { LazyLlmBackend, type OpenLlmBackend } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../../config';

/**
 * The model backend of this orchestrator, opened once on first use: Claude when ANTHROPIC_API_KEY
 * is set, else the Messages-API simulator started in-process (the same SDK code path, offline).
 * The cost governor's price table costs its `chat` spans and caps a session's working window.
 */
@Injectable()
export class LlmBackendProvider implements OnApplicationShutdown {
  private readonly backend: LazyLlmBackend;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    const logger = new Logger('LlmBackend');
    this.backend = new LazyLlmBackend({
      env: {
        ANTHROPIC_API_KEY: config.ANTHROPIC_API_KEY,
        ANTHROPIC_BASE_URL: config.ANTHROPIC_BASE_URL,
        HS_SIMULATOR_SCENARIOS: config.HS_SIMULATOR_SCENARIOS,
        HS_SIMULATOR_LATENCY: config.HS_SIMULATOR_LATENCY,
      },
      timeoutMs: config.LLM_TIMEOUT_MS,
      maxRetries: config.LLM_MAX_RETRIES,
      fetchPrices: async () => (await request(nc, getPrices, {})).table,
      logger: { log: (line) => logger.log(line), warn: (line) => logger.warn(line) },
    });
  }

  /** The table in hand (refreshed in the background), for costs and the long-context step. */
  readonly priceTable = (): PriceTable | undefined => this.backend.priceTable();

  get simulated(): boolean {
    return !this.config.ANTHROPIC_API_KEY;
  }

  get(): Promise<OpenLlmBackend> {
    return this.backend.get();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backend.close();
  }
}
