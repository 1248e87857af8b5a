import { trace } from '@opentelemetry/api';
import type { Attribution, RoutingDecision } from '@headspace/contracts';

/** Cost attribution on the request's span (seed 003 Req 16.2): GenAI usage attributes plus ours. */
export function annotateUsageSpan(a: Attribution, model: string, t: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWrite5mTokens: number; cacheWrite1hTokens: number }, costUsd: string): void {
  trace.getActiveSpan()?.setAttributes({
    'gen_ai.request.model': model,
    // As on the client's `chat` span: input counts every token the model read, cache reads and writes included.
    'gen_ai.usage.input_tokens': t.inputTokens + t.cacheReadTokens + t.cacheWrite5mTokens + t.cacheWrite1hTokens,
    'gen_ai.usage.output_tokens': t.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': t.cacheReadTokens,
    'gen_ai.usage.cache_creation.input_tokens': t.cacheWrite5mTokens + t.cacheWrite1hTokens,
    'headspace.cost.usd': Number(costUsd),
    'headspace.persona': a.persona,
    'headspace.team': a.team,
    'headspace.session_id': a.sessionId,
    ...(a.taskId ? { 'headspace.task_id': a.taskId } : {}),
  });
}

/** The governor's answer on the may-spend span: decision, routed model, effort. */
export function annotateDecisionSpan(decision: string, routing: RoutingDecision): void {
  trace.getActiveSpan()?.setAttributes({
    'headspace.budget.decision': decision,
    'gen_ai.request.model': routing.model,
    'headspace.model_tier': routing.tier,
    'headspace.effort': routing.effort,
    'headspace.thinking_budget_tokens': routing.thinkingBudgetTokens,
    'headspace.batch': routing.batch,
    'headspace.speed': routing.speed,
  });
}
