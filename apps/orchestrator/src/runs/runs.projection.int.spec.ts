import { randomUUID } from 'node:crypto';
import { runStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { orchestratorProjectionSpec } from '../testing/projection-store';
import { RunsProjection } from './runs.projection';

let given: Awaited<ReturnType<typeof orchestratorProjectionSpec<RunsProjection>>>;
beforeAll(async () => (given = await orchestratorProjectionSpec('runsproj', (store) => new RunsProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const STARTED_AT = '2025-01-01T10:00:00.000Z';
const ENDED_AT = '2025-01-01T12:00:00.000Z';
const at = '2025-01-01T11:00:00.000Z';
const TASK = { key: 'T1', subject: 'Add topWords', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [] };
const SPEC = { goal: 'count words', acceptanceCriteria: ['topWords returns the top n'], constraints: [], outOfScope: [] };

/** One run's events, by name; each takes the run id. */
const ev = (type: string, data: Record<string, unknown>) => (runId: string): NewEvent => ({ type: `run.${type}`, data: { runId, ...data } });
const e = {
  started: (runId: string): NewEvent => ({
    type: 'run.started',
    data: {
      runId,
      team: 'red',
      goal: 'A word counter with topWords',
      title: 'Word counter',
      source: '/tmp/source',
      mode: 'v3',
      operator: 'interactive',
      limits: { maxQaRounds: 1, maxTaskAttempts: 2, maxWorkshopRounds: 3, maxConcurrentAgents: 3 },
      roster: { pools: { backend: ['con'] }, names: { con: 'Con' } },
      simulated: true,
      startedAt: STARTED_AT,
    },
  }),
  workspacePrepared: ev('workspace-prepared', { dir: '/tmp/run', branch: 'run/word-counter', baseCommit: 'abc123', at }),
  questionsAsked: ev('questions-asked', { round: 1, questions: ['Which language?'], at }),
  questionsAnswered: ev('questions-answered', { round: 1, answer: 'TypeScript', by: 'operator', at }),
  specDrafted: ev('spec-drafted', { spec: SPEC, at }),
  specAccepted: ev('spec-accepted', { by: 'operator', at }),
  tasksProposed: ev('tasks-proposed', { tasks: [TASK], by: 'gavin', approvalId: 'ap-1', at }),
  tasksRejected: ev('tasks-rejected', { by: 'operator', reason: 'split it', at }),
  tasksApproved: ev('tasks-approved', { tasks: [TASK], by: 'operator', edited: false, at }),
  tasksAdded: ev('tasks-added', { tasks: [{ ...TASK, origin: 'plan', author: 'gavin' }], at }),
  tasksCreated: ev('tasks-created', { team: 'red', tasks: [{ key: 'T1', taskId: 'red-1' }], at }),
  personaQueued: ev('persona-queued', { sessionId: 's-1', purpose: 'task', taskKey: 'T1', pool: 'backend', requestId: 'rq-1', position: 1, at }),
  sessionStarted: ev('session-started', { sessionId: 's-1', purpose: 'task', persona: 'con', taskKey: 'T1', attempt: 1, pool: 'backend', leaseId: 'lease-1', at }),
  sessionEnded: ev('session-ended', { sessionId: 's-1', exitReason: 'completed', summary: 'done', at }),
  taskFinished: ev('task-finished', { taskKey: 'T1', persona: 'con', sessionId: 's-1', attempt: 1, outcome: 'completed', summary: 'done', files: ['src/words.ts'], at }),
  taskMerged: ev('task-merged', { taskKey: 'T1', files: ['src/words.ts'], commit: 'def456', at }),
  taskConflicted: ev('task-conflicted', { taskKey: 'T1', files: ['src/words.ts'], conflictTaskKey: 'C-T1', at }),
  conflictTaskAdded: ev('tasks-added', { tasks: [{ ...TASK, key: 'C-T1', subject: 'Resolve merge conflict of T1', origin: 'merge-conflict' }], at }),
  qaFailed: ev('qa-reported', { round: 1, passed: false, failures: [{ test: 'topWords ties', decision: 'escalate' }], summary: '1 failure', at }),
  escalated: ev('escalated', { escalationId: 'esc-1', from: 'verner', to: 'operator', subject: 'QA out of rounds', details: '', about: 'qa-r1', at }),
  escalationAnswered: ev('escalation-answered', { escalationId: 'esc-1', answer: 'continue', by: 'operator', at }),
  qaPassed: ev('qa-reported', { round: 1, passed: true, failures: [], summary: 'all pass', at }),
  reviewReported: ev('review-reported', { verdict: 'issues', report: 'naming', issues: ['rename topWords'], at }),
  personaReleased: ev('persona-released', { sessionId: 's-1', persona: 'con', leaseId: 'lease-1', at }),
  completed: ev('completed', { verdict: 'issues', resultDir: '/tmp/result', branch: 'run/word-counter', headCommit: 'fff999', at: ENDED_AT }),
  failed: ev('failed', { reason: 'operator stopped it', at: ENDED_AT }),
};
type Step = keyof typeof e;

/**
 * The run's row, with `updated_at_is_last_event`: its updated_at is the record time of the run's last
 * event (never the clock), so a rebuild writes the same row. Events carry their record time to the millisecond.
 */
const runRow = (runId: string) => ({
  sql: `SELECT r.*, abs(extract(epoch FROM r.updated_at - (SELECT max(recorded_at) FROM orchestrator.events WHERE stream_id = $2))) < 0.001 AS updated_at_is_last_event
          FROM orchestrator.runs r WHERE run_id = $1`,
  params: [runId, runStreamId(runId)],
});
const newRun = () => `r-${randomUUID().slice(0, 8)}`;
const inRun = (runId: string, steps: Step[]) => inStream(runStreamId(runId), ...steps.map((step) => e[step](runId)));

// The whole v3 path, one event at a time: after each, the row shows the phase that follows from
// everything recorded so far and the leases still held, and is stamped with that event's record time.
const story: Array<{ event: Step; phase: string; leases?: number; ended?: boolean }> = [
  { event: 'started', phase: 'workshop' },
  { event: 'workspacePrepared', phase: 'workshop' },
  { event: 'questionsAsked', phase: 'workshop' },
  { event: 'questionsAnswered', phase: 'workshop' },
  { event: 'specDrafted', phase: 'spec-review' },
  { event: 'specAccepted', phase: 'decomposition' },
  { event: 'tasksProposed', phase: 'tasks-review' },
  { event: 'tasksRejected', phase: 'decomposition' },
  { event: 'tasksProposed', phase: 'tasks-review' },
  { event: 'tasksApproved', phase: 'decomposition' },
  { event: 'tasksAdded', phase: 'execution' },
  { event: 'tasksCreated', phase: 'execution' },
  { event: 'personaQueued', phase: 'execution' },
  { event: 'sessionStarted', phase: 'execution', leases: 1 },
  { event: 'sessionEnded', phase: 'execution', leases: 1 },
  { event: 'taskFinished', phase: 'execution', leases: 1 },
  { event: 'taskMerged', phase: 'qa', leases: 1 },
  { event: 'qaFailed', phase: 'qa', leases: 1 },
  { event: 'escalated', phase: 'qa', leases: 1 },
  { event: 'escalationAnswered', phase: 'review', leases: 1 },
  { event: 'reviewReported', phase: 'review', leases: 1 },
  { event: 'personaReleased', phase: 'review' },
  { event: 'completed', phase: 'completed', ended: true },
];
const storyUpTo = (event: Step) => story.slice(0, story.findIndex((s) => s.event === event) + 1).map((s) => s.event);

describe('runs projection', () => {
  it('a started run is listed in the workshop phase with its team, title and mode, no verdict and no end', async () => {
    const runId = newRun();
    await spec()
      .when(inRun(runId, ['started']))
      .then(runRow(runId), [
        { run_id: runId, team: 'red', title: 'Word counter', mode: 'v3', phase: 'workshop', verdict: null, leases_held: 0, started_at: new Date(STARTED_AT), ended_at: null, updated_at_is_last_event: true },
      ]);
  });

  it.each(story.map((step, i) => ({ ...step, before: story.slice(0, i).map((s) => s.event) })))('after $event the run is in phase $phase', async ({ before, event, phase, leases, ended }) => {
    const runId = newRun();
    await spec()
      .given(...(before.length > 0 ? [inRun(runId, before)] : []))
      .when(inRun(runId, [event]))
      .then(runRow(runId), [
        { phase, leases_held: leases ?? 0, verdict: ended ? 'issues' : null, ended_at: ended ? new Date(ENDED_AT) : null, updated_at_is_last_event: true },
      ]);
  });

  it('a conflicted merge keeps the run executing, where a clean merge would move it on to QA', async () => {
    const runId = newRun();
    await spec()
      .given(inRun(runId, storyUpTo('taskFinished')))
      .when(inRun(runId, ['taskConflicted']))
      .then(runRow(runId), [{ phase: 'execution', leases_held: 1, updated_at_is_last_event: true }]);
  });

  it('the conflict task a conflicted merge adds keeps the run executing', async () => {
    const runId = newRun();
    await spec()
      .given(inRun(runId, [...storyUpTo('taskFinished'), 'taskConflicted']))
      .when(inRun(runId, ['conflictTaskAdded']))
      .then(runRow(runId), [{ phase: 'execution', updated_at_is_last_event: true }]);
  });

  it('a failed run records its end with no verdict, still counting the lease its session holds', async () => {
    const runId = newRun();
    await spec()
      .given(inRun(runId, storyUpTo('sessionStarted')))
      .when(inRun(runId, ['failed']))
      .then(runRow(runId), [{ phase: 'failed', verdict: null, leases_held: 1, ended_at: new Date(ENDED_AT), updated_at_is_last_event: true }]);
  });

  it('runs of one batch each get their own row', async () => {
    const [a, b] = [newRun(), newRun()];
    await spec()
      .when(inRun(a, ['started', 'specDrafted']), inRun(b, ['started']))
      .then({ sql: 'SELECT run_id, phase FROM orchestrator.runs WHERE run_id = ANY ($1) ORDER BY run_id', params: [[a, b].sort()] }, [a, b].sort().map((runId) => ({ run_id: runId, phase: runId === a ? 'spec-review' : 'workshop' })));
  });
});
