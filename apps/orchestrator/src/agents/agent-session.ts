import type { EventData, sessionStarted } from '@headspace/contracts';

type Started = EventData<typeof sessionStarted>;

interface Built {
  ports: { system: Array<Record<string, unknown>> };
  limits: { maxTurns: number };
}

/**
 * A top-level session (an ask's, a run's build session) running a custom agent: the definition's
 * body heads the system prompt — before the persona's identity, the reflection protocol and the
 * `Persona:`/`Situation:` lines the run machinery and the simulator need — and its `maxTurns`
 * caps the session's. A subagent child gets its whole prompt from the definition instead (ADR 30).
 */
export function withAgentDefinition<B extends Built>(started: Pick<Started, 'agent' | 'parentSessionId'>, built: B): B {
  const agent = started.agent;
  if (!agent || started.parentSessionId) return built;
  const head = agent.systemPrompt.trim() ? [{ type: 'text' as const, text: `# Agent: ${agent.name}\n\n${agent.systemPrompt.trim()}` }] : [];
  return {
    ...built,
    ports: { ...built.ports, system: [...head, ...built.ports.system] },
    limits: { ...built.limits, maxTurns: Math.min(agent.maxTurns ?? built.limits.maxTurns, built.limits.maxTurns) },
  };
}
