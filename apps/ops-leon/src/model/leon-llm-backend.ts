import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { describeLlmBackend, openLlmBackend, type OpenLlmBackend } from '@headspace/llm';
import { APP_CONFIG } from '@headspace/platform';
import type { ModelConfig } from './model.config';

/**
 * Leon's model backend, opened once on first use: Claude when ANTHROPIC_API_KEY is set, else the
 * Messages-API simulator started in-process (the same SDK code path, offline, labelled simulated).
 */
@Injectable()
export class LeonLlmBackend implements OnApplicationShutdown {
  private readonly logger = new Logger('LeonLlmBackend');
  private opening?: Promise<OpenLlmBackend>;

  constructor(@Inject(APP_CONFIG) private readonly config: ModelConfig) {}

  get(): Promise<OpenLlmBackend> {
    this.opening ??= openLlmBackend({
      env: {
        ANTHROPIC_API_KEY: this.config.ANTHROPIC_API_KEY,
        ANTHROPIC_BASE_URL: this.config.ANTHROPIC_BASE_URL,
        HS_SIMULATOR_SCENARIOS: this.config.HS_SIMULATOR_SCENARIOS,
      },
      timeoutMs: this.config.HS_OPS_MODEL_TIMEOUT_MS,
      maxRetries: this.config.HS_OPS_MODEL_MAX_RETRIES,
    }).then((opened) => {
      this.logger.log(`model backend: ${JSON.stringify(describeLlmBackend(opened.backend))}`);
      return opened;
    });
    // A failed start is not kept: the next call tries again.
    this.opening.catch(() => (this.opening = undefined));
    return this.opening;
  }

  async onApplicationShutdown(): Promise<void> {
    await (await this.opening?.catch(() => undefined))?.close();
  }
}
