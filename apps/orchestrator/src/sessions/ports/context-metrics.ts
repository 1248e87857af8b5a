import type { ContextHealth } from '@headspace/agent-runtime';
import { meter } from '@headspace/telemetry';

const freePercent = meter.createHistogram('headspace.orchestrator.context.free_percent', {
  description: 'Free share of the working window when a session compacts (seed 003 Req 2.8), by persona',
  unit: '%',
});
const preservedTokens = meter.createHistogram('headspace.orchestrator.context.preserved_tokens', {
  description: 'Tokens of PRESERVE_VERBATIM / PRESERVE_STRUCTURED items kept through a compaction, by persona',
  unit: '{token}',
});
const itemsByStaleness = meter.createHistogram('headspace.orchestrator.context.items', {
  description: 'Context items of a session at compaction by staleness (fresh < 2 ≤ aging < 10 ≤ stale; turns since last use × 1/uses), by persona',
  unit: '{item}',
});

/** The context window's health (Req 2.8) at a compaction, into the orchestrator's meter. */
export function recordContextHealth(health: ContextHealth, session: { persona: string }): void {
  const persona = session.persona;
  freePercent.record(health.freePercent, { persona });
  preservedTokens.record(health.preservedTokens, { persona });
  for (const [staleness, count] of Object.entries(health.stalenessDistribution)) itemsByStaleness.record(count, { persona, staleness });
}
