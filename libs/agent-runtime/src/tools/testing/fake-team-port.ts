import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { NewTeamTask, TeamCaller, TeamTaskView, TeamToolsPort } from '../team-tools';

/** An in-memory TeamToolsPort for tests: tasks, messages, locks and approvals in maps. */
export class FakeTeamPort implements TeamToolsPort {
  readonly tasks = new Map<string, TeamTaskView>();
  readonly messages: Array<{ from: string; to: string; body: string; type?: string }> = [];
  readonly locks = new Map<string, string>();
  /** `decision` is set by a test playing the human who answers. */
  readonly approvals: Array<{ subject: string; by: string; decision?: 'approve' | 'deny' }> = [];
  readonly calls: Array<{ method: string; caller: TeamCaller }> = [];
  constructor(private readonly members: string[] = ['con', 'al', 'may']) {}

  async listTasks(filter: { status?: string; assignee?: string }, caller: TeamCaller) {
    this.calls.push({ method: 'listTasks', caller });
    return [...this.tasks.values()].filter((t) => (!filter.status || t.status === filter.status) && (!filter.assignee || t.assignee === filter.assignee));
  }
  async createTasks(tasks: NewTeamTask[], caller: TeamCaller) {
    this.calls.push({ method: 'createTasks', caller });
    const taskIds = tasks.map((t) => {
      const id = `task-${this.tasks.size + 1}`;
      this.tasks.set(id, { id, title: t.title, status: 'pending', dependencies: t.dependencies ?? [] });
      return id;
    });
    return { taskIds };
  }
  async claimTask(taskId: string, caller: TeamCaller) {
    this.calls.push({ method: 'claimTask', caller });
    const task = this.tasks.get(taskId);
    if (!task) throw new HeadspaceError('TASK.NOT_FOUND', `No task ${taskId}.`);
    // As the team-manager: the holder claiming again keeps the task; anyone else is refused.
    if (task.status === 'claimed' && task.assignee === caller.agentId) return task;
    if (task.status !== 'pending') throw new HeadspaceError('TASK.ALREADY_CLAIMED', `Task ${taskId} is held by ${task.assignee}.`);
    Object.assign(task, { status: 'claimed', assignee: caller.agentId });
    return task;
  }
  async completeTask(taskId: string, outcome: { summary: string }, caller: TeamCaller) {
    this.calls.push({ method: 'completeTask', caller });
    const task = this.tasks.get(taskId);
    if (!task) throw new HeadspaceError('TASK.NOT_FOUND', `No task ${taskId}.`);
    if (task.assignee !== caller.agentId) throw new HeadspaceError('TASK.NOT_OWNER', `Task ${taskId} is not yours.`);
    Object.assign(task, { status: 'complete', summary: outcome.summary });
    return task;
  }
  async releaseTask(taskId: string, reason: string, caller: TeamCaller) {
    this.calls.push({ method: 'releaseTask', caller });
    const task = this.tasks.get(taskId);
    if (!task) throw new HeadspaceError('TASK.NOT_FOUND', `No task ${taskId}.`);
    if (task.status !== 'claimed' || task.assignee !== caller.agentId) throw new HeadspaceError('TASK.NOT_OWNER', `Task ${taskId} is not yours.`);
    task.status = 'pending';
    delete task.assignee;
    task.failedApproaches = [...((task.failedApproaches as string[] | undefined) ?? []), reason];
    return task;
  }
  async sendMessage(message: { to: string; body: string; type?: string }, caller: TeamCaller) {
    this.calls.push({ method: 'sendMessage', caller });
    if (!this.members.includes(message.to)) throw new HeadspaceError('MAILBOX.UNKNOWN_RECIPIENT', `No teammate ${message.to}.`);
    this.messages.push({ from: caller.agentId, ...message });
    return { messageId: `msg-${this.messages.length}` };
  }
  async broadcastMessage(message: { body: string; type?: string }, caller: TeamCaller) {
    this.calls.push({ method: 'broadcastMessage', caller });
    const ids = this.members.filter((m) => m !== caller.agentId).map((to) => {
      this.messages.push({ from: caller.agentId, to, ...message });
      return `msg-${this.messages.length}`;
    });
    return { messageIds: ids };
  }
  async lockFile(path: string, caller: TeamCaller) {
    this.calls.push({ method: 'lockFile', caller });
    const holder = this.locks.get(path);
    if (holder && holder !== caller.agentId) throw new HeadspaceError('LOCK.HELD', `${path} is locked by ${holder}.`);
    this.locks.set(path, caller.agentId);
    return { path, holder: caller.agentId };
  }
  async unlockFile(path: string, caller: TeamCaller) {
    this.calls.push({ method: 'unlockFile', caller });
    if (this.locks.get(path) !== caller.agentId) throw new HeadspaceError('LOCK.NOT_HOLDER', `You do not hold ${path}.`);
    this.locks.delete(path);
    return { path };
  }
  async requestApproval(request: { subject: string }, caller: TeamCaller) {
    this.calls.push({ method: 'requestApproval', caller });
    this.approvals.push({ subject: request.subject, by: caller.agentId });
    return { approvalId: `appr-${this.approvals.length}`, status: 'pending' };
  }
  async getApproval(approvalId: string, caller: TeamCaller) {
    this.calls.push({ method: 'getApproval', caller });
    const approval = this.approvals[Number(approvalId.replace('appr-', '')) - 1];
    if (!approval) throw new HeadspaceError(ErrorCodes.approvalNotFound, `No approval ${approvalId}`);
    return { approvalId, subject: approval.subject, status: approval.decision ? (approval.decision === 'approve' ? 'approved' : 'denied') : 'pending', ...(approval.decision ? { decision: approval.decision } : {}), expiresAt: '2099-01-01T00:00:00.000Z' };
  }
  /** A LockChecker over the same lock table. */
  async holdsLock(path: string, agentId: string): Promise<boolean> {
    return this.locks.get(path) === agentId;
  }
}
