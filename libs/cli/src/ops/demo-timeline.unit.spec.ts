import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDemoApp } from './demo-app';
import type { StreamPayload } from './demo-stream';
import { formatEntry, runLine, timelineEntry } from './demo-timeline';

const event = (type: string, data: Record<string, unknown>, summary = ''): StreamPayload => ({ eventId: 'e1', type, time: '2026-11-26T14:31:08.000Z', summary, data });
const transition = { groupId: 'grp_1', project: 'ops-demo', at: '2026-11-26T14:31:08.000Z' };

describe('the ops demo timeline', () => {
  it('a triage line names the severity, the domain and the persona it routes to, labelled [simulated] when the model was', () => {
    const triaged = event('group.triaged', { ...transition, from: 'ANALYSING', to: 'ANALYSING', by: 'leon', severity: 'error', domain: 'backend', persona: 'con', autoFixable: true, hypothesis: 'orderTotal reads a missing discount', simulated: true });
    const entry = timelineEntry(triaged, 'ANALYSING')!;
    expect(formatEntry(entry)).toBe('14:31:08  ANALYSING       leon      [simulated] severity error, backend → con, auto-fixable; orderTotal reads a missing discount');
    expect(formatEntry({ ...entry, simulated: false })).not.toContain('[simulated]');
  });

  it('a transition line shows the state it moved to, who moved it and why, with what the transition carries', () => {
    const proposed = event('group.fix-proposed', { ...transition, from: 'ANALYSING', to: 'FIX_PROPOSED', by: 'leon', approach: 'Default the discount to 0 %', approvalSkipped: 'trusted' });
    expect(timelineEntry(proposed, 'ANALYSING')).toMatchObject({ state: 'FIX_PROPOSED', by: 'leon', why: 'Default the discount to 0 %; no approval asked: trusted project, low severity' });
    const opened = event('group.opened', { ...transition, type: 'TypeError', title: 'Cannot read properties of undefined', culprit: 'orders.js in orderTotal', release: 'shop@1.0.0' });
    expect(timelineEntry(opened, '')).toMatchObject({ state: 'NEW', by: 'ingest', why: 'TypeError: Cannot read properties of undefined; in orders.js in orderTotal; release shop@1.0.0' });
  });

  it('only group events make timeline entries, and only the fix run’s telling steps make run lines', () => {
    expect(timelineEntry(event('approval.decided', { approvalId: 'a1' }), 'FIX_PROPOSED')).toBeUndefined();
    expect(runLine(event('run.regression-checked', { runId: 'r1' }, 'Regression test fails before the fix ✓'), true)).toContain('[simulated] Regression test fails before the fix ✓');
    expect(runLine(event('run.persona-released', { runId: 'r1' }, 'Verner is free again'), true)).toBeUndefined();
  });

  it('finds the demo app of the checkout from the compiled CLI’s folder as from its sources', () => {
    const repo = resolve(__dirname, '../../../..');
    const app = join(repo, 'examples', 'ops', 'demo-app');
    expect(findDemoApp([join(repo, 'dist', 'libs', 'cli', 'src', 'ops')])).toBe(app);
    expect(findDemoApp([__dirname])).toBe(app);
    expect(findDemoApp(['/'])).toBeUndefined();
  });
});
