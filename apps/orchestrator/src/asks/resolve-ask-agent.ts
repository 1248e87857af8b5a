import { listPersonas, ValidationError, type AgentSnapshot } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AgentResolver } from '../agents/agent-resolver.service';

/** The persona an ask runs as when it names no agent: the builder persona of the example team. */
export const DEFAULT_ASK_PERSONA = 'con';

/**
 * Where `--agent <name>` becomes who runs the ask: a custom agent definition of the workspace's
 * project or the user (or a shipped template; ADR 30's precedence) first — the session then runs
 * as the agent (persona = its name) with its prompt, tools, model and turn limit — else a
 * persona id of the team-manager; neither: a 400 naming `agent` that lists both.
 */
export async function resolveAskAgent(nc: NatsConnection, agents: AgentResolver, agent: string | undefined, workspace: string, team?: string): Promise<{ persona: string; definition?: AgentSnapshot }> {
  if (!agent) return { persona: DEFAULT_ASK_PERSONA };
  const found = await agents.lookup(agent, workspace, team);
  if (found.agent) return { persona: found.agent.name, definition: found.agent };
  const { personas } = await request(nc, listPersonas, {});
  if (!personas.some((p) => p.personaId === agent)) {
    const names = (list: string[]) => list.join(', ') || 'none';
    throw new ValidationError('ask', [{ field: 'agent', message: `no agent "${agent}" (agents: ${names(found.known)}; personas: ${names(personas.map((p) => p.personaId))})` }]);
  }
  return { persona: agent };
}
