import { toAgentRuntimeSettings, type AgentDefinition } from '@headspace/agent-runtime';
import type { AgentSnapshot, EventData, sessionStarted } from '@headspace/contracts';
import { allowList } from '../sessions/subagents/subagent-sessions.service';

type Started = EventData<typeof sessionStarted>;

/**
 * A custom agent definition as an ask or a run records it (`--agent <name>`): the model stays
 * `inherit` unless the definition names one (then it is a pin), the allow-list is what
 * `session.started` carries (definition's `tools`, or every workspace tool minus
 * `disallowedTools`; none: everything).
 */
export function agentSnapshotOf(def: AgentDefinition): AgentSnapshot {
  const settings = toAgentRuntimeSettings(def, { model: 'inherit' });
  const tools = allowList(settings.tools, settings.disallowedTools);
  return {
    name: def.key,
    scope: def.scope,
    source: def.source,
    systemPrompt: settings.systemPrompt,
    model: settings.model,
    ...(def.effort ? { effort: def.effort } : {}),
    ...(tools ? { tools } : {}),
    ...(def.maxTurns !== undefined ? { maxTurns: def.maxTurns } : {}),
  };
}

/** What a session running the agent is started with besides model and effort (those come from routing). */
export function agentSessionStart(agent: AgentSnapshot): Pick<Started, 'agent' | 'tools'> {
  return {
    agent: { name: agent.name, systemPrompt: agent.systemPrompt, ...(agent.maxTurns ? { maxTurns: agent.maxTurns } : {}) },
    ...(agent.tools ? { tools: agent.tools } : {}),
  };
}

