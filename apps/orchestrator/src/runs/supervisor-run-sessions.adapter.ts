import { sessionStreamId } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import type { SessionSupervisor } from '../sessions/session-supervisor';
import type { RunSessionOutcome, RunSessionStart, RunSessionsPort } from './run-ports';

/** Run sessions are agent sessions run by this orchestrator's supervisor; outcomes are read from their streams. */
export class SupervisorRunSessions implements RunSessionsPort {
  constructor(
    private readonly supervisor: SessionSupervisor,
    private readonly store: EventStore,
    readonly simulated: boolean,
  ) {}

  async start(s: RunSessionStart): Promise<void> {
    await this.supervisor.start({ ...s, runtime: 'built-in', simulated: this.simulated });
  }

  async outcome(sessionId: string): Promise<RunSessionOutcome | undefined> {
    const events = await this.store.readStream(sessionStreamId(sessionId));
    const ended = events.find((e) => e.type === 'session.ended')?.data as { exitReason: string; summary: string; filesModified: string[] } | undefined;
    if (!ended) return undefined;
    const reflected = events.find((e) => e.type === 'session.reflected')?.data as { reflection?: Record<string, unknown> } | undefined;
    return { exitReason: ended.exitReason, summary: ended.summary, filesModified: ended.filesModified, ...(reflected?.reflection ? { reflection: reflected.reflection } : {}) };
  }
}
