import type { BatchView } from '@headspace/contracts';
import { pendingItems, type BatchState } from './batch.decider';

/** The API's view of a batch, from its folded stream (the caller checked it exists). */
export function batchView(state: BatchState): BatchView {
  const s = state.submitted!;
  const counts = { pending: pendingItems(state).length, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  for (const item of Object.values(state.settled)) counts[item.result]++;
  return {
    batchId: s.batchId,
    team: s.team,
    status: state.status === 'none' ? 'submitting' : state.status,
    providerBatchId: state.created?.providerBatchId ?? null,
    simulated: s.simulated || Boolean(state.created?.providerBatchId.startsWith('msgbatch_sim_')) || Object.values(state.settled).some((i) => i.simulated),
    items: s.items.map((item) => {
      const settled = state.settled[item.customId];
      return {
        customId: item.customId,
        persona: item.persona,
        model: settled?.model ?? item.model,
        tier: item.tier,
        status: settled?.result ?? 'pending',
        text: settled?.text ?? null,
        error: settled?.error ?? null,
        usage: settled?.usage ?? null,
        costUsd: settled?.costUsd ?? null,
      };
    }),
    counts,
    costUsd: state.ended?.costUsd ?? null,
    standardCostUsd: state.ended?.standardCostUsd ?? null,
    failure: state.failed?.reason ?? null,
    submittedAt: s.submittedAt,
    endedAt: state.ended?.at ?? state.failed?.at ?? null,
  };
}
