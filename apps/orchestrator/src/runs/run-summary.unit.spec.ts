import { summariseRunEvent, type RunStreamEvent } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';

const at = '2026-11-24T10:00:00.000Z';
const runId = 'r1';

describe('one-line run event summaries', () => {
  it('say who did what to which task, in words a person reads', () => {
    const lines = (
      [
        { type: 'run.session-started', data: { runId, sessionId: 's', purpose: 'task', persona: 'con', taskKey: 'T1', subject: 'Add topWords', attempt: 1, at } },
        { type: 'run.task-finished', data: { runId, taskKey: 'T1', subject: 'Add topWords', persona: 'con', sessionId: 's', attempt: 1, outcome: 'completed', summary: '', files: [], at } },
        { type: 'run.task-merged', data: { runId, taskKey: 'qa-r1', files: [], at } },
        { type: 'run.qa-reported', data: { runId, round: 1, passed: false, failures: [{ test: 't', message: '', decision: 'send-back', details: '' }], summary: '', at } },
        { type: 'run.tasks-added', data: { runId, tasks: [{ key: 'F1-1', subject: 'Fix: reject n=0', description: '', pool: 'backend', acceptanceCriteria: [], dependsOn: [], origin: 'qa-fix', author: 'con' }], at } },
        { type: 'run.escalated', data: { runId, escalationId: 'qa-r1-spec', from: 'verner', to: 'robbo', subject: 'Spec ambiguity: ties', details: '', at } },
        { type: 'run.persona-queued', data: { runId, sessionId: 's', purpose: 'task', taskKey: 'T3', pool: 'backend', requestId: 'q', position: 2, at } },
        {
          type: 'run.completed',
          data: { runId, verdict: 'done', resultDir: '/ws', branch: 'headspace/r1/main', headCommit: 'h', summary: { tasks: 3, attempts: 4, qaRounds: 2, wallTimeMs: 303_000 }, at },
        },
      ] as RunStreamEvent[]
    ).map(summariseRunEvent);
    expect(lines).toEqual([
      "Con started T1 'Add topWords'",
      "Con finished T1 'Add topWords'",
      "Verner's QA tests of round 1 merged",
      'Verner: QA round 1 found 1 failure, 1 sent back to the team',
      "Fix task F1-1 'Fix: reject n=0' added for Con",
      'Verner escalated to Robbo: Spec ambiguity: ties',
      'T3 waits for a free backend persona (number 2 in the queue)',
      'Run completed (done): 3 tasks, 4 attempts, 2 QA rounds in 5m 03s; result on headspace/r1/main in /ws',
    ]);
  });

  it('keep free text to one line', () => {
    expect(summariseRunEvent({ type: 'run.failed', data: { runId, reason: 'first\nsecond', at } })).toBe('Run failed: first second');
  });
});
