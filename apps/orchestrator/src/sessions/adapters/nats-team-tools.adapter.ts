import type { LockChecker, NewTeamTask, TeamApprovalView, TeamCaller, TeamTaskView, TeamToolsPort } from '@headspace/agent-runtime';
import {
  APPROVAL_PAYLOAD_MAX_BYTES,
  claimTask,
  completeTask,
  createTasks,
  ErrorCodes,
  getApproval,
  HeadspaceError,
  listTasks,
  releaseTask,
  lockFile,
  messageTopicSchema,
  requestApproval,
  sendMessage,
  unlockFile,
  type TaskStatus,
  type TaskView,
} from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import { NatsLockChecker, type NatsLockCheckerOptions } from './nats-lock-checker.adapter';

const SUBJECT_MAX = 200;
const TEXT_MAX = 10_000;
/** How long a human or the lead has to answer request_approval before its default (deny) applies. */
const APPROVAL_TIMEOUT_MS = 3_600_000;
/** Leaves room in the payload's byte cap for the other fields. */
const APPROVAL_DETAILS_MAX_BYTES = APPROVAL_PAYLOAD_MAX_BYTES - 1_024;

export const toTeamTaskView = (t: TaskView): TeamTaskView => ({
  id: t.taskId,
  title: t.subject,
  status: t.status === 'completed' ? 'complete' : t.blocked ? 'blocked' : t.status,
  ...(t.owner ? { assignee: t.owner } : {}),
  dependencies: t.dependsOn,
  files: t.files,
  description: t.description,
  blockedBy: t.blockedBy,
  attempts: t.attempts,
  ...(t.leaseExpiresAt ? { leaseExpiresAt: t.leaseExpiresAt } : {}),
  ...(t.failedApproaches.length ? { failedApproaches: t.failedApproaches } : {}),
});

/** The team-manager wants a 5–10 word, ≤200 character summary on every message. */
export function summaryOf(body: string, from: string): string {
  const words = body.split(/\s+/).filter(Boolean);
  const picked = words.length >= 5 ? words : [...`Message from ${from}:`.split(' '), ...words, ...'see the full message'.split(' ')];
  // 10 words of at most 19 characters and 9 spaces stay within 200 characters.
  return picked
    .slice(0, 10)
    .map((w) => w.slice(0, 19))
    .join(' ');
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** Clips `text` until its JSON form fits `maxBytes` (approval payloads are capped in bytes, not characters). */
function clipJson(text: string, maxBytes: number): string {
  let clipped = text;
  for (;;) {
    const bytes = Buffer.byteLength(JSON.stringify(clipped));
    if (bytes <= maxBytes) return clipped;
    clipped = clip(clipped, Math.floor((clipped.length * maxBytes) / bytes) - 1);
  }
}

function descriptionOf(t: NewTeamTask): string {
  const parts = [
    ...(t.title.length > SUBJECT_MAX ? [t.title] : []),
    ...(t.description ? [t.description] : []),
    ...(t.acceptanceCriteria?.length ? ['Acceptance criteria:', ...t.acceptanceCriteria.map((c) => `- ${c}`)] : []),
  ];
  return clip(parts.join('\n'), TEXT_MAX);
}

/** The tool's `status` filter in the team-manager's terms: `pending` means claimable, `blocked` waiting on dependencies. */
function statusFilter(status: string | undefined): { status?: TaskStatus; blocked?: boolean } {
  switch (status) {
    case 'complete':
      return { status: 'completed' };
    case 'blocked':
      return { status: 'pending', blocked: true };
    case 'pending':
      return { status: 'pending', blocked: false };
    case 'claimed':
      return { status: 'claimed' };
    default:
      return {};
  }
}

/**
 * The team protocol as agents use it (tasks, messages, locks, approvals) over the team-manager's
 * NATS contracts. Owners, senders and lock holders are the caller's agent id (the persona, whose
 * inbox the session opens). Each call's command id is derived from its `tool_use` id, scoped to the
 * session, agent, team and operation: tool_use ids are only unique per conversation (the simulator
 * derives them from the request), and a retried call must land on the same command. Refusals
 * (TASK.ALREADY_CLAIMED, LOCK.HELD, …) arrive as HeadspaceErrors with their codes and are left to
 * propagate: the tool turns them into results the model reads.
 */
export class NatsTeamTools implements TeamToolsPort, LockChecker {
  readonly locks: NatsLockChecker;

  constructor(
    private readonly nc: NatsConnection,
    private readonly team: string,
    lockOptions: NatsLockCheckerOptions = {},
  ) {
    this.locks = new NatsLockChecker(nc, team, lockOptions);
  }

  private teamOf(caller: TeamCaller): string {
    return caller.teamId ?? this.team;
  }

  private commandId(operation: string, caller: TeamCaller): { commandId: string } {
    const scope = ['team-tools', operation, this.teamOf(caller), caller.agentId, caller.sessionId ?? ''].join('\u0000');
    return { commandId: idFromCommand(caller.toolUseId, scope) };
  }

  /** The board row, if the projection shows it yet (it trails commands by a few tens of ms). */
  private async boardRow(team: string, taskId: string, filter: { status?: TaskStatus; owner?: string } = {}): Promise<TeamTaskView | undefined> {
    const { tasks } = await request(this.nc, listTasks, { team, ...filter, taskIds: [taskId], limit: 1 });
    return tasks[0] ? toTeamTaskView(tasks[0]) : undefined;
  }

  async listTasks(filter: { status?: string; assignee?: string }, caller: TeamCaller): Promise<TeamTaskView[]> {
    const { tasks } = await request(this.nc, listTasks, {
      team: this.teamOf(caller),
      ...statusFilter(filter.status),
      ...(filter.assignee ? { owner: filter.assignee } : {}),
    });
    return tasks.map(toTeamTaskView);
  }

  /**
   * When the batch names its tasks (`key`), every task gets an id derived from the call (so a retry
   * lands on the same ids) and dependencies on a key become dependencies on that task's id; the
   * team-manager creates the batch in one command, dependencies inside it included.
   */
  async createTasks(tasks: NewTeamTask[], caller: TeamCaller): Promise<{ taskIds: string[] }> {
    const command = this.commandId('create-tasks', caller);
    const keyed = tasks.some((t) => t.key !== undefined);
    const ids = tasks.map((_, i) => idFromCommand(command.commandId, `team-tools-task:${i}`));
    const idOfKey = new Map(tasks.flatMap((t, i) => (t.key === undefined ? [] : [[t.key, ids[i]] as const])));
    const { taskIds } = await request(
      this.nc,
      createTasks,
      {
        team: this.teamOf(caller),
        tasks: tasks.map((t, i) => ({
          ...(keyed ? { id: ids[i] } : {}),
          subject: clip(t.title, SUBJECT_MAX),
          description: descriptionOf(t),
          dependsOn: (t.dependencies ?? []).map((d) => idOfKey.get(d) ?? d),
          files: t.files ?? [],
          metadata: { createdBy: caller.agentId, ...(t.pool ? { pool: t.pool } : {}) },
        })),
      },
      command,
    );
    return { taskIds };
  }

  async claimTask(taskId: string, caller: TeamCaller): Promise<TeamTaskView> {
    const team = this.teamOf(caller);
    const claim = await request(this.nc, claimTask, { team, taskId, owner: caller.agentId }, this.commandId('claim-task', caller));
    const row = await this.boardRow(team, taskId, { status: 'claimed', owner: claim.owner });
    // The claim's own answer wins over a board row that may not show it yet.
    return { ...(row ?? { id: taskId, title: taskId }), status: 'claimed', assignee: claim.owner, attempt: claim.attempt, leaseExpiresAt: claim.leaseExpiresAt };
  }

  async completeTask(taskId: string, outcome: { summary: string; filesModified?: string[] }, caller: TeamCaller): Promise<TeamTaskView> {
    const team = this.teamOf(caller);
    const files = outcome.filesModified?.length ? `\n\nFiles modified:\n${outcome.filesModified.map((f) => `- ${f}`).join('\n')}` : '';
    await request(
      this.nc,
      completeTask,
      { team, taskId, owner: caller.agentId, result: clip(outcome.summary + files, TEXT_MAX) },
      this.commandId('complete-task', caller),
    );
    const row = await this.boardRow(team, taskId, { status: 'completed', owner: caller.agentId });
    return { ...(row ?? { id: taskId, title: taskId }), status: 'complete', assignee: caller.agentId };
  }

  async releaseTask(taskId: string, reason: string, caller: TeamCaller): Promise<TeamTaskView> {
    const team = this.teamOf(caller);
    const released = await request(this.nc, releaseTask, { team, taskId, owner: caller.agentId, reason: clip(reason, 2_000) }, this.commandId('release-task', caller));
    const { assignee: _previous, ...row } = (await this.boardRow(team, taskId)) ?? { id: taskId, title: taskId };
    // The release's own answer wins over a board row that may not show it yet.
    return { ...row, status: released.escalated ? 'escalated' : 'pending', attempt: released.attempt, escalated: released.escalated };
  }

  async sendMessage(message: { to: string; type?: string; body: string }, caller: TeamCaller): Promise<{ messageId: string; recipients: string[] }> {
    const { messageId, recipients } = await request(
      this.nc,
      sendMessage,
      { team: this.teamOf(caller), from: caller.agentId, type: 'message', to: message.to, ...this.content(message, caller) },
      this.commandId('send-message', caller),
    );
    return { messageId, recipients };
  }

  async broadcastMessage(message: { type?: string; body: string }, caller: TeamCaller): Promise<{ messageIds: string[]; recipients: string[] }> {
    const { messageId, recipients } = await request(
      this.nc,
      sendMessage,
      { team: this.teamOf(caller), from: caller.agentId, type: 'broadcast', ...this.content(message, caller) },
      this.commandId('broadcast-message', caller),
    );
    // One message, one copy per recipient: the copies share its id.
    return { messageIds: [messageId], recipients };
  }

  private content(message: { type?: string; body: string }, caller: TeamCaller) {
    const topic = messageTopicSchema.safeParse(message.type);
    return { body: message.body, summary: summaryOf(message.body, caller.agentId), ...(topic.success ? { topic: topic.data } : {}) };
  }

  async lockFile(path: string, caller: TeamCaller): Promise<{ path: string; holder: string; since: string; brokeStaleLockOf?: string }> {
    const team = this.teamOf(caller);
    const lock = await request(this.nc, lockFile, { team, path, holder: caller.agentId }, this.commandId('lock-file', caller));
    this.locks.noteAcquired(team, lock.path, lock.holder);
    return { path: lock.path, holder: lock.holder, since: lock.since, ...(lock.brokeStaleLockOf ? { brokeStaleLockOf: lock.brokeStaleLockOf } : {}) };
  }

  async unlockFile(path: string, caller: TeamCaller): Promise<{ path: string; released: boolean }> {
    const team = this.teamOf(caller);
    const { released } = await request(this.nc, unlockFile, { team, path, holder: caller.agentId }, this.commandId('unlock-file', caller));
    this.locks.noteReleased(team, path, caller.agentId);
    return { path, released };
  }

  async getApproval(approvalId: string, caller: TeamCaller): Promise<TeamApprovalView> {
    const a = await request(this.nc, getApproval, { approvalId });
    // Agents see their own team's queue only.
    if (a.team !== this.teamOf(caller)) throw new HeadspaceError(ErrorCodes.approvalNotFound, `No approval ${approvalId} in team ${this.teamOf(caller)}`);
    return {
      approvalId: a.approvalId,
      subject: a.summary,
      status: a.status,
      ...(a.decision ? { decision: a.decision } : {}),
      ...(a.reason ? { reason: a.reason } : {}),
      ...(a.decidedBy ? { decidedBy: a.decidedBy } : {}),
      expiresAt: a.expiresAt,
    };
  }

  async requestApproval(req: { subject: string; details?: string }, caller: TeamCaller): Promise<{ approvalId: string; status: string; expiresAt: string }> {
    const { approvalId, expiresAt } = await request(
      this.nc,
      requestApproval,
      {
        team: this.teamOf(caller),
        kind: 'permission-request',
        requester: caller.agentId,
        summary: clip(req.subject, 500),
        payload: { details: clipJson(req.details ?? '', APPROVAL_DETAILS_MAX_BYTES), ...(caller.sessionId ? { sessionId: caller.sessionId } : {}) },
        timeoutMs: APPROVAL_TIMEOUT_MS,
        defaultAnswer: 'deny',
      },
      this.commandId('request-approval', caller),
    );
    return { approvalId, status: 'pending', expiresAt };
  }

  /** Writes outside a persona's `owns` need a lock it holds (in the adapter's default team). */
  holdsLock(path: string, agentId: string): Promise<boolean> {
    return this.locks.holdsLock(path, agentId);
  }
}
