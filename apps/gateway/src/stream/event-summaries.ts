import { runEvents, summariseRunEvent, type RunStreamEvent } from '@headspace/contracts';
/**
 * One human-legible line per event ("Con claimed 'Add auth migration'"), from a table keyed by
 * event type covering every team-manager event, with a fallback for types it does not know.
 * Task subjects come from a small cache filled by `task.created`, so later task events can name
 * their task instead of showing its id.
 */
type Data = Record<string, unknown>;

const MAX_TEXT = 120;

const s = (v: unknown, fallback = '?'): string => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback);

/** First line of a text, cut to a readable length. */
export function clip(text: unknown, max = MAX_TEXT): string {
  const line = s(text, '').split(/\r?\n/)[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `con` → `Con`; session keys and other ids are left as they are. */
export function displayName(name: unknown): string {
  const n = s(name);
  return /^[a-z][a-z0-9-]*$/.test(n) && n !== 'team-lead' ? n.charAt(0).toUpperCase() + n.slice(1) : n;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Task subjects by `<team>/<taskId>`, least recently set dropped first. */
export class TaskSubjectCache {
  private readonly subjects = new Map<string, string>();

  constructor(private readonly capacity = 10_000) {}

  set(team: string, taskId: string, subject: string): void {
    const key = `${team}/${taskId}`;
    this.subjects.delete(key);
    this.subjects.set(key, subject);
    if (this.subjects.size > this.capacity) this.subjects.delete(this.subjects.keys().next().value as string);
  }

  get(team: unknown, taskId: unknown): string | undefined {
    return this.subjects.get(`${s(team)}/${s(taskId)}`);
  }

  get size(): number {
    return this.subjects.size;
  }
}

type Summariser = (d: Data, task: (d: Data, capital?: boolean) => string) => string;

const summarisers: Record<string, Summariser> = {
  // team
  'team.created': (d) => `Team ${s(d.name)} created (lead: ${s(d.leadAgentType)})${d.description ? `: ${clip(d.description, 80)}` : ''}`,
  'team.shutdown-requested': (d) => `${displayName(d.requestedBy)} asked ${count(Array.isArray(d.requests) ? d.requests.length : 0, 'member')} to shut down${d.reason ? `: ${clip(d.reason, 80)}` : ''}`,
  'team.shutdown-responded': (d) =>
    `${displayName(d.member)} ${d.approve ? 'approved' : 'refused'} the shutdown${d.implicit ? ' (went idle)' : ''}${d.reason ? `: ${clip(d.reason, 80)}` : ''}`,
  'team.shutdown-aborted': (d) => `Shutdown aborted: ${count(Array.isArray(d.rejections) ? d.rejections.length : 0, 'member')} refused`,
  'team.shutdown-completed': (d) => {
    const unanswered = Array.isArray(d.unanswered) ? d.unanswered.length : 0;
    return `Team shut down${d.forced ? ' (forced)' : d.timedOut ? ' (timed out)' : ''}${unanswered ? `, ${count(unanswered, 'member')} never answered` : ''}`;
  },
  // members
  'teammate.spawned': (d) => `${displayName(d.name)} joined as ${s(d.agentType)}${d.model ? ` on ${s(d.model)}` : ''}: ${clip(d.task, 80)}`,
  'teammate.idle': (d) => `${displayName(d.name)} is idle${d.summary ? `: ${clip(d.summary, 80)}` : ''}`,
  'teammate.announced': (d) => `${displayName(d.name)} ${d.outcome === 'failed' ? 'failed' : 'finished'}: ${clip(d.summary, 100)}`,
  'teammate.terminated': (d) => `${displayName(d.name)} stopped (${s(d.reason)})`,
  // tasks
  'tasklist.tasks-added': (d) => {
    const tasks = Array.isArray(d.tasks) ? (d.tasks as Data[]) : [];
    const deps = tasks.filter((t) => Array.isArray(t.dependsOn) && t.dependsOn.length > 0).length;
    return `${count(tasks.length, 'task')} added to the task list${deps ? ` (${deps} with dependencies)` : ''}`;
  },
  'task.created': (d) => {
    const deps = Array.isArray(d.dependsOn) ? (d.dependsOn as string[]) : [];
    return `Task '${clip(d.subject, 80)}' created${deps.length ? `, after ${deps.map((x) => `#${x}`).join(', ')}` : ''}`;
  },
  'task.claimed': (d, task) => `${displayName(d.owner)} claimed ${task(d)}${Number(d.attempt) > 1 ? ` (attempt ${s(d.attempt)})` : ''}`,
  'task.heartbeat': (d, task) => `${displayName(d.owner)} is still on ${task(d)}${d.activeForm ? `: ${clip(d.activeForm, 60)}` : ''}`,
  'task.lease-expired': (d, task) => `${displayName(d.owner)}'s lease on ${task(d)} expired (attempt ${s(d.attempt)})`,
  'task.released': (d, task) => `${displayName(d.owner)} gave up ${task(d)}: ${clip(d.reason, 80)}`,
  'task.escalated': (d, task) => `${task(d, true)} escalated after ${count(Number(d.attempts) || 0, 'attempt')}: ${clip(d.reason, 80)}`,
  'task.completed': (d, task) => `${displayName(d.owner)} completed ${task(d)}${d.result ? `: ${clip(d.result, 80)}` : ''}`,
  // mailboxes
  'mailbox.inbox-opened': (d) => `${displayName(d.memberId)}'s inbox opened (${s(d.role)})`,
  'mailbox.message-delivered': (d) => {
    const from = displayName(d.from);
    const text = clip(d.summary ?? d.body ?? '', 100);
    switch (d.type) {
      case 'broadcast':
        return `${from} broadcast to ${displayName(d.recipient)}: ${text}`;
      case 'shutdown_request':
        return `${from} asked ${displayName(d.recipient)} to shut down`;
      case 'shutdown_response':
        return `${from} ${d.approve ? 'approved' : 'refused'} shutdown${d.reason ? `: ${clip(d.reason, 80)}` : ''}`;
      case 'idle_notification':
        return `${from} told ${displayName(d.recipient)} it is idle${text ? `: ${text}` : ''}`;
      default:
        return d.visibility === 'summary' && d.peerTo
          ? `${from} sent ${displayName(d.peerTo)} a message: ${text}`
          : `${from} sent ${displayName(d.recipient)} a message: ${text}`;
    }
  },
  'mailbox.messages-read': (d) => `${displayName(d.memberId)} read ${count(Array.isArray(d.messageIds) ? d.messageIds.length : 0, 'message')}`,
  'mailbox.shutdown-requested': (d) => `${displayName(d.from)} asked ${displayName(d.to)} to shut down`,
  'mailbox.shutdown-answered': (d) => `${displayName(d.from)} ${d.approve ? 'approved' : 'refused'} ${displayName(d.to)}'s shutdown request${d.reason ? `: ${clip(d.reason, 80)}` : ''}`,
  // personas
  'persona.config-loaded': (d) =>
    `Persona config loaded: ${count(Array.isArray(d.personas) ? d.personas.length : 0, 'persona')}, ${count(Array.isArray(d.pools) ? d.pools.length : 0, 'pool')}, at most ${s(d.maxConcurrentAgents)} agents`,
  'persona.registered': (d) => `Persona ${displayName((d.persona as Data | undefined)?.name ?? (d.persona as Data | undefined)?.personaId)} registered`,
  'persona.updated': (d) => `Persona ${displayName((d.persona as Data | undefined)?.name ?? (d.persona as Data | undefined)?.personaId)} updated`,
  'persona.pool-membership-set': (d) => `Pool ${s(d.pool)} is now ${Array.isArray(d.personas) && d.personas.length ? (d.personas as string[]).map(displayName).join(', ') : 'empty'}`,
  'persona.max-concurrency-set': (d) => `At most ${s(d.maxConcurrentAgents)} agents may run at once`,
  'persona.granted': (d) => `${displayName(d.personaId)} assigned from pool ${s(d.pool)}${d.taskId ? ` to task #${s(d.taskId)}` : ''}${d.fromQueue ? ' (was queued)' : ''}`,
  'persona.request-queued': (d) => `Request for pool ${s(d.pool)} queued at position ${s(d.position)} (${s(d.reason)})`,
  'persona.pool-exhausted': (d) => `Pool ${s(d.pool)} exhausted: ${s(d.activeAgents)}/${s(d.maxConcurrentAgents)} agents busy, ${count(Number(d.queueLength) || 0, 'request')} waiting`,
  'persona.released': (d) => `${displayName(d.personaId)} released`,
  'persona.request-cancelled': (d) => `Request for pool ${s(d.pool)} cancelled`,
  // approvals
  'approval.requested': (d) => `Approval requested: ${clip(d.summary, 100)} (${s(d.kind)}, by ${displayName(d.requester)})`,
  'approval.timed-out': (d) => `Approval ${s(d.kind)} timed out; default answer ${s(d.defaultAnswer)} applies`,
  'approval.decided': (d) => `Approval ${d.decision === 'approve' ? 'granted' : 'denied'} by ${displayName(d.decidedBy)}${d.source === 'timeout' ? ' (timeout)' : ''}${d.reason ? `: ${clip(d.reason, 80)}` : ''}`,
  // manifests and file locks
  'manifest.imported': (d) => {
    const manifest = (d.manifest ?? {}) as Data;
    return `Manifest of ${s(d.team)} imported: ${count(Array.isArray(manifest.members) ? manifest.members.length : 0, 'member')}`;
  },
  'filelock.acquired': (d) => `${displayName(d.holder)} locked ${s(d.path)}${d.brokeStaleLockOf ? ` (broke ${displayName(d.brokeStaleLockOf)}'s stale lock)` : ''}`,
  'filelock.refreshed': (d) => `${displayName(d.holder)} still holds ${s(d.path)}`,
  'filelock.released': (d) => `${displayName(d.holder)} released ${s(d.path)}${d.reason === 'task-completed' ? ' (task completed)' : ''}`,
  // message batches (deferrable work at batch prices)
  'batch.submitted': (d) => `Batch ${s(d.batchId)} submitted: ${count(Array.isArray(d.items) ? d.items.length : 0, 'deferrable request')}${d.simulated ? ' (simulated)' : ''}`,
  'batch.create-attempted': (d) => `Batch ${s(d.batchId)} being sent to the Message Batches API (attempt ${s(d.attempt)})`,
  'batch.created': (d) => `Batch ${s(d.batchId)} ${d.adopted ? 'found again' : 'accepted'} at the Message Batches API as ${s(d.providerBatchId)}${String(d.providerBatchId).startsWith('msgbatch_sim_') ? ' (simulated)' : ''}`,
  'batch.item-settled': (d) =>
    `Batch ${s(d.batchId)} item ${s(d.customId)} ${s(d.result)}${d.costUsd ? `: $${s(d.costUsd)} at batch prices` : d.error ? `: ${clip(d.error, 80)}` : ''}${d.simulated ? ' (simulated)' : ''}`,
  'batch.ended': (d) => {
    const c = (d.counts ?? {}) as Data;
    return `Batch ${s(d.batchId)} ended: ${s(c.succeeded, '0')} succeeded, ${s(c.errored, '0')} errored, ${s(c.canceled, '0')} canceled, ${s(c.expired, '0')} expired; $${s(d.costUsd)} at batch prices${d.standardCostUsd ? ` ($${s(d.standardCostUsd)} at standard)` : ''}`;
  },
  'batch.failed': (d) => `Batch ${s(d.batchId)} failed: ${clip(d.reason, 100)}`,
  // workflows (DAGs and pipelines of asks) and topology choice
  'workflow.started': (d) => `Workflow ${s(d.workflowId)} (${s(d.name)}, ${s(d.mode)}) started: ${count(Array.isArray(d.steps) ? d.steps.length : 0, 'step')}${d.simulated ? ' (simulated)' : ''}`,
  'workflow.step-started': (d) => `Workflow ${s(d.workflowId)} step ${s(d.stepId)} started${Number(d.attempt) > 1 ? ` (attempt ${s(d.attempt)})` : ''}`,
  'workflow.step-ended': (d) => `Workflow ${s(d.workflowId)} step ${s(d.stepId)} ${s(d.status)}${d.reason ? `: ${clip(d.reason, 80)}` : d.output ? `: ${clip(d.output, 80)}` : ''}`,
  'workflow.ended': (d) => `Workflow ${s(d.workflowId)} ${s(d.status)}${d.reason ? `: ${clip(d.reason, 100)}` : ''}`,
  'request.topology-chosen': (d) => `Request ${s(d.requestId)} runs as ${d.topology === 'run' ? 'the agent team' : 'one agent'}${d.auto ? '' : ' (named)'}: ${clip(Array.isArray(d.reasons) ? d.reasons.join('; ') : '', 120)}`,
  'skill.updated': (d) => {
    const added = Array.isArray(d.added) ? d.added.length : 0;
    const removed = Array.isArray(d.removed) ? d.removed.length : 0;
    const what = d.source === 'operator' ? 'edited by the operator' : d.source === 'pending' ? `got ${count(added, 'pending line')} to curate` : `gained ${count(added, 'learned line')}${d.source === 'approval' ? ' (approved)' : ' (auto)'}`;
    return `${displayName(d.persona)}'s skill.md ${what}${removed ? `, ${count(removed, 'old line')} curated out` : ''} (${s(d.tokens)} tokens)`;
  },
  'skill.curation-set': (d) => `Skill updates in ${s(d.team)} now ${d.mode === 'auto' ? 'merge and curate automatically' : d.mode === 'pending' ? 'wait in skill.md’s Pending section' : 'need an approval'}`,
};

/** Event types that have a dedicated summary (every run event has one, from the run contracts). */
export const summarisedTypes = (): string[] => [...Object.keys(summarisers), ...runEvents.map((e) => e.type), 'session.started', 'session.ended', 'session.compacted'];

/** Agent sessions: their start and their end are the story; the turns in between are detail. */
const sessionSummary = (type: string, d: Data): string | undefined => {
  if (type === 'session.started') return `${displayName(d.persona)} started a ${s(d.kind)} session on ${s(d.model)}${d.simulated ? ' (simulated)' : ''}`;
  if (type === 'session.ended') return `Session ${s(d.sessionId)} ended: ${s(d.exitReason)} after ${s(d.turns)} turns`;
  if (type === 'session.compacted') return `Session ${s(d.sessionId)} compacted its context after turn ${s(d.turn)} (${s(d.contextTokens)} tokens, threshold ${s(d.thresholdPercent)}%)`;
  return undefined;
};

export class EventSummariser {
  constructor(readonly tasks = new TaskSubjectCache()) {}

  /** Remembers what later events need (task subjects) and returns the event's one-liner. */
  summarise(type: string, data: unknown): string {
    const d: Data = data && typeof data === 'object' ? (data as Data) : {};
    if (type === 'task.created' && typeof d.team === 'string' && typeof d.taskId === 'string' && typeof d.subject === 'string') {
      this.tasks.set(d.team, d.taskId, d.subject);
    }
    if (type.startsWith('run.')) {
      try {
        return summariseRunEvent({ type, data: d } as RunStreamEvent);
      } catch {
        return fallbackSummary(type, d);
      }
    }
    const session = sessionSummary(type, d);
    if (session) return session;
    const summarise = summarisers[type];
    if (!summarise) return fallbackSummary(type, d);
    try {
      return summarise(d, (x, capital) => this.taskLabel(x, capital));
    } catch {
      return fallbackSummary(type, d);
    }
  }

  private taskLabel(d: Data, capital = false): string {
    const subject = this.tasks.get(d.team, d.taskId);
    if (subject) return `'${clip(subject, 80)}'`;
    return `${capital ? 'Task' : 'task'} #${s(d.taskId)}`;
  }
}

/** `budget.exceeded` → "Budget exceeded", plus who/what when the payload says. */
export function fallbackSummary(type: string, d: Data): string {
  const words = type.replace(/[.\-_]+/g, ' ').trim();
  const head = words.charAt(0).toUpperCase() + words.slice(1);
  const detail = [d.team ? `team ${s(d.team)}` : '', typeof d.summary === 'string' ? clip(d.summary, 80) : ''].filter(Boolean).join(': ');
  return detail ? `${head} (${detail})` : head;
}
