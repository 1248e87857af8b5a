import { startRun } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { fixRunRequest, type FixRunInput } from './fix-run-request';

const input: FixRunInput = {
  runId: 'fix-0123456789ab-1',
  groupId: 'grp_0123456789abcdef01234567',
  project: { project: 'shop', team: 'red', repository: '/srv/shop', testCommand: 'npm test' },
  group: { type: 'TypeError', title: "Cannot read properties of undefined (reading '<str>')", culprit: 'src/cart.js in total', count: '12', releases: ['1.4.0'] },
  triage: { severity: 'error', domain: 'database', persona: 'may', autoFixable: true, complex: false, hypothesis: 'the cart row is missing', approach: 'create the row on first use' },
  approach: 'create the row on first use',
  samples: [
    {
      eventId: 'a'.repeat(32),
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'items')",
      level: 'error',
      frames: [],
      stack: "TypeError: Cannot read properties of undefined (reading 'items')\n    at total (/srv/shop/src/cart.js:7:20)",
      tags: {},
      release: '1.4.0',
      environment: 'production',
      user: { email: 'someone@example.com' },
      source: 'http',
    },
  ],
};

describe('fix run request', () => {
  it('asks for a v1, auto-operated run of the project’s team on its repository: Verner’s regression test, then the routed pool’s fix after it', () => {
    const body = startRun.request.parse(fixRunRequest(input));
    expect(body).toMatchObject({ runId: 'fix-0123456789ab-1', team: 'red', source: '/srv/shop', mode: 'v1', operator: 'auto', fix: { groupId: input.groupId, testCommand: 'npm test', regressionTaskKey: 'REG' } });
    expect(body.tasks).toEqual([
      expect.objectContaining({ key: 'REG', pool: 'qa', subject: expect.stringMatching(/^Regression test: Cannot read/), dependsOn: [], description: expect.stringContaining('must fail now') }),
      expect.objectContaining({ key: 'FIX', pool: 'database', subject: expect.stringMatching(/^Fix: Cannot read/), dependsOn: ['REG'], acceptanceCriteria: ['the regression test passes', '`npm test` passes'] }),
    ]);
  });

  it('builds the goal from the triage: type, title, stack, sample events, hypothesis and approach, and no user data', () => {
    const goal = fixRunRequest(input).goal;
    for (const part of ['TypeError', 'src/cart.js in total', 'at total (/srv/shop/src/cart.js:7:20)', "reading 'items'", 'the cart row is missing', 'create the row on first use', 'release 1.4.0']) {
      expect(goal).toContain(part);
    }
    expect(goal).not.toContain('someone@example.com');
  });

  it('routes infrastructure fixes to the integration pool', () => {
    const body = fixRunRequest({ ...input, triage: { ...input.triage, domain: 'infrastructure' } });
    expect(body.tasks?.[1].pool).toBe('integration');
  });
});
