import { ErrorCodes, HeadspaceError, listPersonas } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';

/** The persona an ask runs as when it names no agent: the builder persona of the example team. */
export const DEFAULT_ASK_PERSONA = 'con';

/**
 * The seam where `--agent <name>` becomes who runs the ask. For now an agent is a persona id from
 * the team-manager's personas (PERSONA.NOT_FOUND naming `agent` otherwise); custom agent
 * definitions (issue 24 scope 3) plug in here, ahead of the personas.
 */
export async function resolveAskAgent(nc: NatsConnection, agent: string | undefined): Promise<{ persona: string }> {
  if (!agent) return { persona: DEFAULT_ASK_PERSONA };
  const { personas } = await request(nc, listPersonas, {});
  if (!personas.some((p) => p.personaId === agent)) {
    throw new HeadspaceError(ErrorCodes.personaNotFound, `No agent "${agent}" (agents are personas for now: ${personas.map((p) => p.personaId).join(', ')})`, { field: 'agent' });
  }
  return { persona: agent };
}
