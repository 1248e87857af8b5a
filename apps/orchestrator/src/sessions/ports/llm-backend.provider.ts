import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { describeLlmBackend, openLlmBackend, type OpenLlmBackend } from '@headspace/llm';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../../config';

/**
 * The model backend of this orchestrator, opened once on first use: Claude when ANTHROPIC_API_KEY
 * is set, else the Messages-API simulator started in-process (the same SDK code path, offline).
 */
@Injectable()
export class LlmBackendProvider implements OnApplicationShutdown {
  private readonly logger = new Logger('LlmBackend');
  private opening?: Promise<OpenLlmBackend>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get simulated(): boolean {
    return !this.config.ANTHROPIC_API_KEY;
  }

  get(): Promise<OpenLlmBackend> {
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
