import { routeModel, type AgentSnapshot, type AskRouting } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import { askSignals } from './ask-signals';

/** What the operator asked for: the request's text and any pins. */
export interface RoutedRequest {
  text: string;
  model?: string;
  effort?: AskRouting['effort'];
}

/**
 * How one agent's request is routed (an ask, a loop): the operator's pins win, then a custom
 * agent's model and effort (a pin recorded as the agent's), else the governor's `route-model` on
 * the text's signals; the decision with its reasons, as recorded.
 */
export async function routeRequest(nc: NatsConnection, input: RoutedRequest, agent?: AgentSnapshot): Promise<AskRouting> {
  const { signals, reasons } = askSignals(input.text);
  const model = input.model ?? (agent && agent.model !== 'inherit' ? agent.model : undefined);
  const effort = input.effort ?? agent?.effort;
  const pinnedBy = input.model || input.effort ? 'operator' : model || effort ? 'agent' : undefined;
  const decision = await request(nc, routeModel, { signals, ...(model ? { model } : {}), ...(effort ? { effort } : {}) });
  return {
    model: decision.model,
    tier: decision.tier,
    effort: decision.effort,
    thinkingBudgetTokens: decision.thinkingBudgetTokens,
    reasons: [...reasons, ...(pinnedBy === 'agent' ? [`agent ${agent!.name}`] : []), ...decision.reasons].slice(0, 30),
    signals,
    pinned: pinnedBy !== undefined,
    ...(pinnedBy ? { pinnedBy } : {}),
  };
}
