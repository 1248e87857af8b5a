import type { SessionSupervisor } from '../sessions/session-supervisor';
import type { RunSessionStart, RunSessionsPort } from './run-ports';

/** Run sessions are agent sessions run by this orchestrator's supervisor; the run process reads their outcomes from their streams. */
export class SupervisorRunSessions implements RunSessionsPort {
  constructor(
    private readonly supervisor: SessionSupervisor,
    readonly simulated: boolean,
  ) {}

  async start(s: RunSessionStart): Promise<void> {
    await this.supervisor.start({ ...s, runtime: 'built-in', simulated: this.simulated });
  }
}
