import { Logger } from '@nestjs/common';
import { claimTask, completeTask, createTask, createTeam, releaseTask } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunState } from './run.decider';

/** The team-manager task id of a run task: stable, so every mirror call is idempotent. */
export const teamTaskId = (runId: string, key: string) => `${runId}-${key}`.toLowerCase();

/**
 * Mirrors a run onto the team's shared state in the team-manager: the team, its tasks (with their
 * dependencies), who claimed what, what is done. The run's own stream stays the authority for the
 * run; the mirror is what the task board, the CLI and the SSE stream show ("Con claimed …"). Each
 * call carries a command id derived from the run step, so repeating it after a crash is harmless.
 */
export class TeamMirror {
  private readonly logger = new Logger('RunTeamMirror');

  constructor(private readonly nc: NatsConnection) {}

  async ensureTeam(state: RunState): Promise<void> {
    const s = state.started!;
    await this.call('create team', () =>
      request(this.nc, createTeam, { name: s.team, leadAgentType: 'architect', description: `Team of run ${s.runId}: ${s.title}`.slice(0, 2_000) }, { commandId: `run:${s.runId}:team` }),
    );
  }

  async claim(state: RunState, key: string, persona: string, attempt: number): Promise<void> {
    const s = state.started!;
    const t = state.tasks[key].task;
    const taskId = teamTaskId(s.runId, key);
    await this.call('create task', () =>
      request(
        this.nc,
        createTask,
        {
          team: s.team,
          id: taskId,
          subject: t.subject,
          description: t.description,
          dependsOn: [],
          metadata: { run: s.runId, key, pool: t.pool, origin: t.origin },
        },
        { commandId: `run:${s.runId}:task:${key}` },
      ),
    );
    if (attempt > 1) {
      await this.call('release task', () =>
        request(this.nc, releaseTask, { team: s.team, taskId, owner: state.tasks[key].persona ?? persona, reason: 'The attempt did not finish' }, { commandId: `run:${s.runId}:release:${key}:${attempt}` }),
      );
    }
    await this.call('claim task', () =>
      request(this.nc, claimTask, { team: s.team, taskId, owner: persona, activeForm: `Working on ${t.subject}`.slice(0, 200), leaseMs: 3_600_000 }, { commandId: `run:${s.runId}:claim:${key}:${attempt}` }),
    );
  }

  async complete(state: RunState, key: string): Promise<void> {
    const s = state.started!;
    const t = state.tasks[key];
    if (!t?.persona) return;
    await this.call('complete task', () =>
      request(this.nc, completeTask, { team: s.team, taskId: teamTaskId(s.runId, key), owner: t.persona!, result: (t.summary ?? '').slice(0, 10_000) }, { commandId: `run:${s.runId}:complete:${key}` }),
    );
  }

  /** The mirror never holds the run up: a refusal (already exists, already claimed) or an outage is logged. */
  private async call(what: string, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!/ALREADY_(EXISTS|CLAIMED|COMPLETED)/.test(code)) this.logger.warn(`${what}: ${(error as Error).message}`);
    }
  }
}
