import type { LockChecker, NewTeamTask, TeamCaller, TeamTaskView, TeamToolsPort } from '@headspace/agent-runtime';
import {
  claimTask,
  completeTask,
  createTasks,
  listFileLocks,
  listTasks,
  lockFile,
  requestApproval,
  sendMessage,
  unlockFile,
  type TaskView,
} from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';

const toView = (t: TaskView): TeamTaskView => ({
  id: t.taskId,
  title: t.subject,
  status: t.status === 'completed' ? 'complete' : t.blocked ? 'blocked' : t.status,
  ...(t.owner ? { assignee: t.owner } : {}),
  dependencies: t.dependsOn,
  files: t.files,
  description: t.description,
  blockedBy: t.blockedBy,
});

/** The team-manager wants a 5–10 word summary on every message: the body's first words, padded when short. */
export function summaryOf(body: string, from: string): string {
  const words = body.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
  const picked = words.slice(0, 10);
  const padded = picked.length >= 5 ? picked : [`Message from ${from}:`, ...picked, ...'see the full message'.split(' ')].join(' ').split(' ').slice(0, 10);
  return padded.join(' ').slice(0, 200);
}

/**
 * The team protocol as agents use it (list/create/claim/complete tasks, message, lock, ask for
 * approval), over the team-manager's NATS contracts. The `tool_use` id is the command id, so a
 * tool call repeated after a crash has one effect; refusals (TASK.ALREADY_CLAIMED, LOCK.HELD, …)
 * arrive as HeadspaceErrors with their codes, which the tool turns into results the model reads.
 */
export class NatsTeamTools implements TeamToolsPort, LockChecker {
  constructor(
    private readonly nc: NatsConnection,
    private readonly team: string,
  ) {}

  private teamOf(caller: TeamCaller): string {
    return caller.teamId ?? this.team;
  }

  private async task(team: string, taskId: string): Promise<TeamTaskView> {
    const { tasks } = await request(this.nc, listTasks, { team, limit: 1_000 });
    const found = tasks.find((t) => t.taskId === taskId);
    return found ? toView(found) : { id: taskId, title: taskId, status: 'unknown' };
  }

  async listTasks(filter: { status?: string; assignee?: string }, caller: TeamCaller): Promise<TeamTaskView[]> {
    const status = filter.status === 'complete' ? 'completed' : filter.status === 'blocked' ? 'pending' : (filter.status as 'pending' | 'claimed' | undefined);
    const { tasks } = await request(this.nc, listTasks, {
      team: this.teamOf(caller),
      ...(status ? { status } : {}),
      ...(filter.status === 'blocked' ? { blocked: true } : filter.status === 'pending' ? { blocked: false } : {}),
      ...(filter.assignee ? { owner: filter.assignee } : {}),
    });
    return tasks.map(toView);
  }

  async createTasks(tasks: NewTeamTask[], caller: TeamCaller): Promise<{ taskIds: string[] }> {
    const { taskIds } = await request(
      this.nc,
      createTasks,
      {
        team: this.teamOf(caller),
        tasks: tasks.map((t) => ({
          subject: t.title,
          description: [t.description, ...(t.acceptanceCriteria?.length ? ['Acceptance criteria:', ...t.acceptanceCriteria.map((c) => `- ${c}`)] : [])].filter(Boolean).join('\n'),
          dependsOn: t.dependencies ?? [],
          files: t.files ?? [],
          metadata: { createdBy: caller.agentId },
        })),
      },
      { commandId: caller.toolUseId },
    );
    return { taskIds };
  }

  async claimTask(taskId: string, caller: TeamCaller): Promise<TeamTaskView> {
    const team = this.teamOf(caller);
    await request(this.nc, claimTask, { team, taskId, owner: caller.agentId }, { commandId: caller.toolUseId });
    return this.task(team, taskId);
  }

  async completeTask(taskId: string, outcome: { summary: string; filesModified?: string[] }, caller: TeamCaller): Promise<TeamTaskView> {
    const team = this.teamOf(caller);
    await request(this.nc, completeTask, { team, taskId, owner: caller.agentId, result: outcome.summary.slice(0, 10_000) }, { commandId: caller.toolUseId });
    return this.task(team, taskId);
  }

  async sendMessage(message: { to: string; type?: string; body: string }, caller: TeamCaller): Promise<{ messageId: string }> {
    const { messageId } = await request(
      this.nc,
      sendMessage,
      { team: this.teamOf(caller), from: caller.agentId, type: 'message', to: message.to, body: message.body, summary: summaryOf(message.body, caller.agentId) },
      { commandId: caller.toolUseId },
    );
    return { messageId };
  }

  async broadcastMessage(message: { type?: string; body: string }, caller: TeamCaller): Promise<{ messageIds: string[] }> {
    const { messageId } = await request(
      this.nc,
      sendMessage,
      { team: this.teamOf(caller), from: caller.agentId, type: 'broadcast', body: message.body, summary: summaryOf(message.body, caller.agentId) },
      { commandId: caller.toolUseId },
    );
    return { messageIds: [messageId] };
  }

  async lockFile(path: string, caller: TeamCaller): Promise<{ path: string; holder: string }> {
    const lock = await request(this.nc, lockFile, { team: this.teamOf(caller), path, holder: caller.agentId }, { commandId: caller.toolUseId });
    return { path: lock.path, holder: lock.holder };
  }

  async unlockFile(path: string, caller: TeamCaller): Promise<{ path: string }> {
    await request(this.nc, unlockFile, { team: this.teamOf(caller), path, holder: caller.agentId }, { commandId: caller.toolUseId });
    return { path };
  }

  async requestApproval(req: { subject: string; details?: string }, caller: TeamCaller): Promise<{ approvalId: string; status: string }> {
    const { approvalId } = await request(
      this.nc,
      requestApproval,
      {
        team: this.teamOf(caller),
        kind: 'permission-request',
        requester: caller.agentId,
        summary: req.subject.slice(0, 500),
        payload: { details: (req.details ?? '').slice(0, 8_000), session: caller.sessionId ?? '' },
        timeoutMs: 3_600_000,
      },
      { commandId: caller.toolUseId },
    );
    return { approvalId, status: 'pending' };
  }

  /** Writes outside a persona's `owns` need a lock it holds. */
  async holdsLock(path: string, agentId: string): Promise<boolean> {
    const { locks } = await request(this.nc, listFileLocks, { team: this.team, holder: agentId });
    return locks.some((l) => l.path === path);
  }
}
