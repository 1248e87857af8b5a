import { subagentResultSchema, type PriceTable, type SessionUsage, type SubagentResult } from '@headspace/contracts';
import { usageCostUsd, type LlmUsage } from '@headspace/llm';
import type { SessionEvent } from '../agent-session.decider';

const llmUsage = (u: SessionUsage): LlmUsage => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cacheCreation5mTokens: u.cacheWrite5mTokens,
  cacheCreation1hTokens: u.cacheWrite1hTokens,
  cacheCreationTokens: u.cacheWrite5mTokens + u.cacheWrite1hTokens,
  cacheReadTokens: u.cacheReadTokens,
  totalInputTokens: u.inputTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens + u.cacheReadTokens,
  serviceTier: null,
});

/**
 * The AgentResult of an ended child session, from its stream alone (so a lead resumed after a
 * crash reads the same result for the same call): summary, files and tools from `session.ended`,
 * usage and the model from its model calls, the cost at the price table's rates when one is known.
 */
export function subagentResultOf(agent: string, events: readonly SessionEvent[], prices?: PriceTable): SubagentResult {
  const started = events.find((e) => e.type === 'session.started');
  const ended = events.find((e) => e.type === 'session.ended');
  if (started?.type !== 'session.started' || ended?.type !== 'session.ended') throw new Error(`subagent ${agent}: its session has not ended`);
  const calls = events.flatMap((e) => (e.type === 'session.model-called' ? [e.data] : []));
  const costs = prices ? calls.map((c) => usageCostUsd(prices, c.model, llmUsage(c.usage))) : [];
  const priced = prices !== undefined && costs.every((c) => c !== undefined);
  const d = ended.data;
  const completed = d.exitReason === 'completed';
  return subagentResultSchema.parse({
    agent,
    status: completed ? 'completed' : 'failed',
    sessionId: started.data.sessionId,
    model: calls.at(-1)?.model ?? started.data.model,
    summary: d.summary,
    turnsUsed: d.turns,
    tokensConsumed: { input: d.usage.inputTokens, output: d.usage.outputTokens, cacheRead: d.usage.cacheReadTokens, cacheWrite: d.usage.cacheWrite5mTokens + d.usage.cacheWrite1hTokens },
    toolsUsed: d.toolsUsed,
    filesModified: d.filesModified,
    exitReason: d.exitReason,
    ...(priced ? { costUsd: Math.round(costs.reduce<number>((a, c) => a + (c ?? 0), 0) * 1e6) / 1e6 } : {}),
    ...(completed ? {} : { error: { code: 'SUBAGENT.NOT_COMPLETED', message: (d.error ?? d.summary).slice(0, 5_000) } }),
  });
}
