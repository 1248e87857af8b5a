import { Inject, Injectable, Logger } from '@nestjs/common';
import { maySpend, recordUsage, releaseReservation, type Attribution } from '@headspace/contracts';
import { estimateTokens } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { LeonLlmBackend } from './leon-llm-backend';
import type { ModelConfig } from './model.config';
import { ModelPort, type ModelAnswer, type ModelAsk } from './model-port';

const GOVERNOR_TIMEOUT_MS = 10_000;

/**
 * Every model call of Leon under the cost governor: `may-spend` before (it may route one tier
 * down, pause or stop), `record-usage` after, `release` when the call failed. The governor's
 * command ids come from the ask's `callId`, so a redelivered event re-asking for the same call gets
 * the same reservation and records its usage once. The system prompt opens with `Persona:` and
 * `Situation:` lines: the simulator picks its scenario by them, a real model reads them as context.
 */
@Injectable()
export class GovernedModel extends ModelPort {
  private readonly logger = new Logger('GovernedModel');

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: ModelConfig,
    private readonly backend: LeonLlmBackend,
  ) {
    super();
  }

  async ask(ask: ModelAsk): Promise<ModelAnswer> {
    const attribution: Attribution = {
      sessionId: `leon.${ask.purpose}.${ask.groupId}`,
      persona: ask.persona,
      team: ask.team,
      project: ask.project,
      surface: 'api',
    };
    const system = `Persona: ${ask.persona}\nSituation: ${ask.purpose}\n\n${ask.system}`;
    let budget;
    try {
      budget = await request(
        this.nc,
        maySpend,
        {
          attribution,
          model: ask.tier === 'deep' ? this.config.HS_OPS_TRIAGE_DEEP_MODEL : this.config.HS_OPS_TRIAGE_LIGHT_MODEL,
          estimate: { inputTokens: estimateTokens(system) + estimateTokens(ask.prompt), maxOutputTokens: ask.maxTokens },
        },
        { commandId: `${ask.callId}:may-spend`, timeoutMs: GOVERNOR_TIMEOUT_MS },
      );
    } catch (error) {
      return refused(`the cost governor did not answer: ${(error as Error).message}`, (error as { code?: string }).code);
    }
    if (budget.decision !== 'allow') {
      return refused(budget.message ?? `budget ${budget.decision}`, budget.code ?? `BUDGET.${budget.decision.toUpperCase()}`);
    }
    // Without a budget on the attribution the governor holds nothing to release.
    const reservationId = budget.budgets.length > 0 ? budget.reservationId : undefined;
    try {
      const { client } = await this.backend.get();
      const result = await client.create({
        model: budget.routing.model,
        maxTokens: Math.max(1, Math.min(ask.maxTokens, budget.maxOutputTokens || ask.maxTokens)),
        system,
        messages: [{ role: 'user', content: ask.prompt }],
      });
      const u = result.usage;
      await request(
        this.nc,
        recordUsage,
        {
          attribution,
          model: result.model,
          tokens: { inputTokens: u.inputTokens, outputTokens: u.outputTokens, cacheWrite5mTokens: u.cacheCreation5mTokens, cacheWrite1hTokens: u.cacheCreation1hTokens, cacheReadTokens: u.cacheReadTokens },
          ...(reservationId ? { reservationId } : {}),
        },
        { commandId: `${ask.callId}:usage`, timeoutMs: GOVERNOR_TIMEOUT_MS },
      ).catch((error: Error) => this.logger.warn(`usage of ${ask.callId} not recorded (its reservation expires instead): ${error.message}`));
      const text = result.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      return { status: 'answered', text, model: result.model, simulated: result.simulated };
    } catch (error) {
      if (reservationId) {
        await request(this.nc, releaseReservation, { attribution, reservationId, reason: 'the model call failed' }, { commandId: `${ask.callId}:release`, timeoutMs: GOVERNOR_TIMEOUT_MS }).catch(
          (releaseError: Error) => this.logger.warn(`reservation of ${ask.callId} not released (it expires instead): ${releaseError.message}`),
        );
      }
      return refused(`the model call failed: ${(error as Error).message}`, (error as { code?: string }).code);
    }
  }
}

const refused = (reason: string, code?: string): ModelAnswer => ({ status: 'refused', reason: reason.slice(0, 500), ...(code ? { code } : {}) });
