import { acquirePersona, ErrorCodes, HeadspaceError, releasePersona } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';

export type PersonaGrant = { status: 'granted'; requestId: string; personaId: string; leaseId: string } | { status: 'queued'; requestId: string; position: number };

/**
 * Personas come from the team-manager's pools (seed 000 §5.5, §8): a free persona of the pool,
 * affinity first, at most one agent per persona and `max_concurrent_agents` in all; otherwise the
 * request queues (FIFO) and the operator is told. Command ids come from the session id, so asking
 * again for the same session returns the same request — granted now, or still queued.
 */
export class PersonaPool {
  constructor(private readonly nc: NatsConnection) {}

  async acquire(runId: string, sessionId: string, pool: string, options: { taskId?: string; affinity?: string }): Promise<PersonaGrant> {
    const reply = await request(
      this.nc,
      acquirePersona,
      { pool, agentId: sessionId, ...(options.taskId ? { taskId: options.taskId } : {}), ...(options.affinity ? { affinityPersonaId: options.affinity } : {}) },
      { commandId: `run:${runId}:acquire:${sessionId}` },
    );
    if (reply.status === 'granted') return { status: 'granted', requestId: reply.requestId, personaId: reply.personaId!, leaseId: reply.leaseId! };
    if (reply.status === 'queued') return { status: 'queued', requestId: reply.requestId, position: reply.position ?? 1 };
    throw new Error(`Persona request ${reply.requestId} of session ${sessionId} is ${reply.status} before the session started`);
  }

  /** Gives the persona back; returns the queued requests the release let through. An unknown lease was released already. */
  async release(runId: string, sessionId: string, leaseId: string): Promise<string[]> {
    try {
      const reply = await request(this.nc, releasePersona, { leaseId }, { commandId: `run:${runId}:release:${sessionId}` });
      return reply.granted.map((g) => g.requestId);
    } catch (error) {
      if (error instanceof HeadspaceError && error.code === ErrorCodes.personaLeaseNotFound) return [];
      throw error;
    }
  }
}
