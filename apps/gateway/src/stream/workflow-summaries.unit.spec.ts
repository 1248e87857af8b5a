import { describe, expect, it } from 'vitest';
import { EventSummariser } from './event-summaries';

describe('workflow and topology event summaries', () => {
  const s = new EventSummariser();

  it('says which step of which workflow started, retried or ended, and why', () => {
    expect(s.summarise('workflow.started', { workflowId: 'wf-d-1', name: 'diamond', mode: 'dag', steps: [{}, {}, {}, {}], simulated: true })).toBe('Workflow wf-d-1 (diamond, dag) started: 4 steps (simulated)');
    expect(s.summarise('workflow.step-started', { workflowId: 'wf-d-1', stepId: 'b', attempt: 2 })).toBe('Workflow wf-d-1 step b started (attempt 2)');
    expect(s.summarise('workflow.step-ended', { workflowId: 'wf-d-1', stepId: 'd', status: 'failed', reason: 'needs "b", which failed' })).toBe('Workflow wf-d-1 step d failed: needs "b", which failed');
    expect(s.summarise('workflow.ended', { workflowId: 'wf-d-1', status: 'succeeded' })).toBe('Workflow wf-d-1 succeeded');
  });

  it('says which topology a request got and why', () => {
    expect(s.summarise('request.topology-chosen', { requestId: 'r-1', topology: 'run', auto: true, reasons: ['risky work: refactor', '5+ files and risky work: an agent team (spec, tasks, QA, review)'] })).toBe(
      'Request r-1 runs as the agent team: risky work: refactor; 5+ files and risky work: an agent team (spec, tasks, QA, review)',
    );
  });
});
