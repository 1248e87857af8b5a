import { Logger } from '@nestjs/common';
import { claimTask, completeTask, createTask, createTasks, createTeam, ErrorCodes, HeadspaceError, heartbeatTask, releaseTask } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import { createHash } from 'node:crypto';
import type { RunState } from './run.state';

/** The team-manager task id of a run task: stable (so every call is idempotent) and within the 64-character limit. */
export function teamTaskId(runId: string, key: string): string {
  const id = `${runId}-${key}`.toLowerCase();
  return id.length <= 64 ? id : `${createHash('sha256').update(id).digest('hex').slice(0, 16)}-${key.toLowerCase()}`.slice(0, 64);
}

export const DEFAULT_TASK_LEASE_MS = 4 * 3_600_000;
const codeOf = (error: unknown) => (error instanceof HeadspaceError ? error.code : '');
const givenUp = [ErrorCodes.taskNotClaimed, ErrorCodes.taskAlreadyCompleted, ErrorCodes.taskEscalated];

/**
 * The run's side of the team's shared task list in the team-manager: the team, the run's tasks with
 * their dependencies, who claimed what, what is done. The run stream stays the authority for the
 * run; the task list is what the board, the CLI and other agents see ("Con claimed T1"). Every call
 * carries a command id derived from the run step, so repeating it after a crash is harmless.
 */
export class TeamBoard {
  private readonly logger = new Logger('RunTeamBoard');

  /** When each running session's claim was last made or renewed (this instance's memory: after a restart the first sweep renews). */
  private readonly renewedAt = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly leaseMs = DEFAULT_TASK_LEASE_MS,
  ) {}

  /** Creates the run's team unless it exists: its task list and approvals queue live there. */
  async ensureTeam(state: RunState): Promise<void> {
    const s = state.started!;
    try {
      await request(this.nc, createTeam, { name: s.team, leadAgentType: 'architect', description: `Team of run ${s.runId}: ${s.title}`.slice(0, 2_000) }, { commandId: `run:${s.runId}:team` });
    } catch (error) {
      if (codeOf(error) !== ErrorCodes.teamAlreadyExists) throw error;
    }
  }

  /** Creates the tasks as one batch (dependencies as team task ids); returns key → team task id. */
  async createTasks(state: RunState, keys: string[]): Promise<Array<{ key: string; taskId: string }>> {
    const s = state.started!;
    const ids = new Map(keys.map((k) => [k, teamTaskId(s.runId, k)]));
    const known = (dep: string) => ids.get(dep) ?? state.tasks[dep]?.teamTaskId;
    const tasks = keys.map((key) => {
      const t = state.tasks[key].task;
      return {
        id: ids.get(key)!,
        subject: t.subject,
        description: t.description,
        dependsOn: t.dependsOn.map(known).filter((d): d is string => d !== undefined),
        metadata: { run: s.runId, key, pool: t.pool, origin: t.origin },
      };
    });
    const batch = createHash('sha256').update(keys.join(',')).digest('hex').slice(0, 16);
    try {
      await request(this.nc, createTasks, { team: s.team, tasks }, { commandId: `run:${s.runId}:tasks:${batch}` });
    } catch (error) {
      if (codeOf(error) !== ErrorCodes.taskAlreadyExists) throw error;
      // Some were created by an earlier, different batch (a crash between creating and recording): one by one.
      for (const task of tasks) {
        await request(this.nc, createTask, { team: s.team, ...task }, { commandId: `run:${s.runId}:task:${task.id}` }).catch((e: unknown) => {
          if (codeOf(e) !== ErrorCodes.taskAlreadyExists) throw e;
        });
      }
    }
    return keys.map((key) => ({ key, taskId: ids.get(key)! }));
  }

  /**
   * Claims the task for the persona; a retry first gives back the previous attempt's claim. Each
   * session claims with its own command id: a session continuing after a handoff (same persona, same
   * attempt) is the owner claiming again, which renews the lease, so a task worked across many
   * handoffs never outlives its lease on the board. A relaunch of the same session replays.
   */
  async claim(state: RunState, key: string, persona: string, attempt: number, sessionId: string): Promise<void> {
    const s = state.started!;
    const t = state.tasks[key];
    if (!t?.teamTaskId) return;
    const previous = Object.values(state.sessions).find((x) => x.taskKey === key && x.attempt === attempt - 1);
    if (previous) {
      await this.lenient('release task', () =>
        request(this.nc, releaseTask, { team: s.team, taskId: t.teamTaskId!, owner: previous.persona, reason: 'The attempt did not finish' }, { commandId: `run:${s.runId}:unclaim:${previous.sessionId}` }),
      );
    }
    await this.claimFor(state, key, persona, `run:${s.runId}:claim:${key}:a${attempt}:${sessionId}`);
    this.renewedAt.set(sessionId, Date.now());
  }

  /**
   * The heartbeat of a session still at work on a task: once a quarter of the lease has passed since
   * its claim (or last renewal), the owner's heartbeat renews the lease, so a single session longer
   * than the lease keeps its task. A lease that expired meanwhile (the orchestrator was down) is
   * claimed again; a task the agent gave back itself (release_task) or that another member holds is
   * left as it is. The command id names the quarter, so a pass repeated within it renews once.
   */
  async renew(state: RunState, session: { sessionId: string; taskKey?: string; persona: string; attempt: number }, at = Date.now()): Promise<void> {
    const quarter = Math.max(1, Math.floor(this.leaseMs / 4));
    const last = this.renewedAt.get(session.sessionId);
    const t = session.taskKey ? state.tasks[session.taskKey] : undefined;
    if (!t?.teamTaskId || (last !== undefined && at - last < quarter)) return;
    const s = state.started!;
    const commandId = `run:${s.runId}:claim:${session.taskKey}:a${session.attempt}:${session.sessionId}:renew:${Math.floor(at / quarter)}`;
    try {
      await request(this.nc, heartbeatTask, { team: s.team, taskId: t.teamTaskId, owner: session.persona, leaseMs: this.leaseMs }, { commandId });
    } catch (error) {
      if (codeOf(error) === ErrorCodes.taskLeaseExpired) await this.claimFor(state, session.taskKey!, session.persona, `${commandId}:reclaim`);
      // Given back, finished or escalated by the agent itself: nothing to keep alive.
      else if (!(givenUp as string[]).includes(codeOf(error))) this.logger.warn(`renew the claim of ${session.persona} on ${t.teamTaskId}: ${(error as Error).message}`);
    }
    this.renewedAt.set(session.sessionId, at);
  }

  /** Forgets a session that ended. */
  ended(sessionId: string): void {
    this.renewedAt.delete(sessionId);
  }

  private async claimFor(state: RunState, key: string, persona: string, commandId: string): Promise<void> {
    const s = state.started!;
    const t = state.tasks[key];
    if (!t?.teamTaskId) return;
    await this.lenient('claim task', () =>
      request(this.nc, claimTask, { team: s.team, taskId: t.teamTaskId!, owner: persona, activeForm: `Working on ${t.task.subject}`.slice(0, 200), leaseMs: this.leaseMs }, { commandId }),
    );
  }

  async complete(state: RunState, key: string, result: string): Promise<void> {
    const s = state.started!;
    const t = state.tasks[key];
    if (!t?.teamTaskId || !t.persona) return;
    await this.lenient('complete task', () =>
      request(this.nc, completeTask, { team: s.team, taskId: t.teamTaskId!, owner: t.persona!, result: result.slice(0, 10_000) }, { commandId: `run:${s.runId}:complete:${key}` }),
    );
  }

  /** Claims and completions never hold the run up: a refusal (already claimed, blocked by a skipped dependency) is logged. */
  private async lenient(what: string, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      if (!/ALREADY_(CLAIMED|COMPLETED)|NOT_CLAIMED/.test(codeOf(error))) this.logger.warn(`${what}: ${(error as Error).message}`);
    }
  }
}
