import type { AgentRuntime } from '@headspace/contracts';
import type { SessionSupervisor } from '../sessions/session-supervisor';
import type { RunSessionStart, RunSessionsPort } from './run-ports';

/** Run sessions are agent sessions run by this orchestrator's supervisor; the run process reads their outcomes from their streams. */
export class SupervisorRunSessions implements RunSessionsPort {
  constructor(
    private readonly supervisor: SessionSupervisor,
    readonly simulated: boolean,
    /** The session's runtime: the run's, else its member's or persona's (see session-runtime.ts). */
    private readonly runtimeOf: (s: RunSessionStart) => Promise<AgentRuntime> = async (s) => s.runtime ?? 'built-in',
  ) {}

  async start(s: RunSessionStart): Promise<void> {
    const { runtime: _run, ...start } = s;
    await this.supervisor.start({ ...start, runtime: await this.runtimeOf(s), simulated: this.simulated });
  }
}
