import { maySpend, recordUsage, releaseReservation, type Attribution } from '@headspace/contracts';
import { resolveModel } from '@headspace/llm';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { BudgetDecision, BudgetPort } from '../run-session/session-ports';

/**
 * The cost governor over NATS: `may-spend` before every model call (it reserves the worst case and
 * may route the call one tier down, or pause it), `record-usage` after (settling the reservation).
 * Command ids come from the session and turn, so a resumed session re-asking for a turn it already
 * asked for gets the same answer instead of a second reservation.
 */
export class GovernorBudgetPort implements BudgetPort {
  constructor(
    private readonly nc: NatsConnection,
    private readonly attribution: Attribution,
    private readonly effort: 'quick' | 'standard' | 'deep',
  ) {}

  async maySpend(req: { model: string; estimatedInputTokens: number; maxOutputTokens: number; turn: number; key?: string }): Promise<BudgetDecision> {
    const answer = await request(
      this.nc,
      maySpend,
      {
        attribution: this.attribution,
        model: req.model,
        effort: this.effort,
        estimate: { inputTokens: req.estimatedInputTokens, maxOutputTokens: req.maxOutputTokens },
      },
      { commandId: `${this.attribution.sessionId}:may-spend:${req.key ?? req.turn}` },
    );
    const model = answer.routing.model;
    const reason = answer.message ?? answer.routing.reasons.join('; ');
    if (answer.decision === 'paused') return { decision: 'paused', model, reason: reason || 'Budget paused' };
    if (answer.decision !== 'allow') return { decision: 'stopped', model, reason: reason || `Budget ${answer.decision}` };
    const downgraded = model !== resolveModel(req.model);
    // Micro-dollar strings; a budget's reserved amount already holds this call's reservation.
    const remaining = answer.budgets.flatMap((b) => (b.limitMicros === undefined ? [] : [Number(b.limitMicros) - Number(b.spentMicros) - Number(b.reservedMicros) + Number(answer.reservedMicros)]));
    return {
      decision: downgraded ? 'downgraded' : 'allowed',
      model,
      effort: answer.routing.effort,
      ...(answer.reservationId ? { reservationId: answer.reservationId } : {}),
      ...(downgraded || reason ? { reason } : {}),
      ...(remaining.length ? { remainingUsd: Math.max(0, Math.min(...remaining)) / 1_000_000 } : {}),
    };
  }

  async recordUsage(req: { reservationId?: string; model: string; usage: { inputTokens: number; outputTokens: number; cacheWrite5mTokens: number; cacheWrite1hTokens: number; cacheReadTokens: number }; turn: number; key?: string }): Promise<void> {
    await request(
      this.nc,
      recordUsage,
      { attribution: this.attribution, model: req.model, tokens: req.usage, ...(req.reservationId ? { reservationId: req.reservationId } : {}) },
      { commandId: `${this.attribution.sessionId}:usage:${req.key ?? req.turn}` },
    );
  }

  async release(req: { reservationId: string; turn: number; key?: string; reason: string }): Promise<void> {
    await request(
      this.nc,
      releaseReservation,
      { attribution: this.attribution, reservationId: req.reservationId, reason: req.reason.slice(0, 500) },
      { commandId: `${this.attribution.sessionId}:release:${req.key ?? req.turn}` },
    );
  }
}
