import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { getPrices } from '@headspace/contracts';
import { LazyLlmBackend, type OpenLlmBackend } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ModelConfig } from './model.config';

/**
 * Leon's model backend, opened once on first use: Claude when ANTHROPIC_API_KEY is set, else the
 * Messages-API simulator started in-process (the same SDK code path, offline, labelled simulated).
 * Its `chat` spans carry the governor's price for the call (`headspace.cost.usd`).
 */
@Injectable()
export class LeonLlmBackend implements OnApplicationShutdown {
  private readonly backend: LazyLlmBackend;

  constructor(@Inject(APP_CONFIG) config: ModelConfig, @Inject(NATS_CONNECTION) nc: NatsConnection) {
    const logger = new Logger('LeonLlmBackend');
    this.backend = new LazyLlmBackend({
      env: {
        ANTHROPIC_API_KEY: config.ANTHROPIC_API_KEY,
        ANTHROPIC_BASE_URL: config.ANTHROPIC_BASE_URL,
        HS_SIMULATOR_SCENARIOS: config.HS_SIMULATOR_SCENARIOS,
      },
      timeoutMs: config.HS_OPS_MODEL_TIMEOUT_MS,
      maxRetries: config.HS_OPS_MODEL_MAX_RETRIES,
      fetchPrices: async () => (await request(nc, getPrices, {})).table,
      logger: { log: (line) => logger.log(line), warn: (line) => logger.warn(line) },
    });
  }

  get(): Promise<OpenLlmBackend> {
    return this.backend.get();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backend.close();
  }
}
