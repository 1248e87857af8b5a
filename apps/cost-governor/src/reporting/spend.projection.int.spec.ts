import { randomUUID } from 'node:crypto';
import { quotaStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { costGovernorProjectionSpec } from '../testing/projection-store';
import { SpendProjection } from './spend.projection';

let given: Awaited<ReturnType<typeof costGovernorProjectionSpec<SpendProjection>>>;
beforeAll(async () => (given = await costGovernorProjectionSpec('spendproj', (store) => new SpendProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const newKey = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const OCCURRED_AT = '2025-01-01T10:00:00.000Z';

const usage = (usageId: string, team: string, extra: { taskId?: string; costMicros?: string; reservationId?: string } = {}): NewEvent => ({
  type: 'usage.recorded',
  data: {
    usageId,
    attribution: { ...(extra.taskId ? { taskId: extra.taskId } : {}), sessionId: 's-1', persona: 'con', team, project: 'parser', surface: 'cli' },
    model: 'claude-sonnet-4-5',
    tier: 'sonnet',
    serviceTier: 'standard',
    tokens: { inputTokens: 1_000, outputTokens: 200, cacheWrite5mTokens: 30, cacheWrite1hTokens: 20, cacheReadTokens: 500, thinkingTokens: 50 },
    costMicros: extra.costMicros ?? '6150',
    longContext: false,
    priceVersion: 2,
    ...(extra.reservationId ? { reservationId: extra.reservationId } : {}),
    occurredAt: OCCURRED_AT,
  },
});
const rateLimit = (project: string, utilization: number, at: string): NewEvent => ({
  type: 'quota.rate-limit-status',
  data: { project, persona: 'con', surface: 'cli', info: { status: 'allowed_warning', rateLimitType: 'five_hour', utilization, resetsAt: '2025-01-01T15:00:00.000Z' }, at },
});

const ledgerOf = (team: string) => ({ sql: 'SELECT * FROM cost_governor.usage_ledger WHERE team = $1 ORDER BY seq', params: [team] });
const rateLimitOf = (project: string) => ({ sql: 'SELECT * FROM cost_governor.rate_limits WHERE project = $1', params: [project] });

describe('spend projection', () => {
  it('a usage record is a ledger row under every attribution key, with its tokens, cost and price version', async () => {
    const team = newKey('t');
    const id = randomUUID();
    await spec()
      .when(inStream(`usage-${id}`, usage(id, team, { taskId: 'T-1', reservationId: 'res-1' })))
      .then(ledgerOf(team), [
        {
          usage_id: id,
          task_id: 'T-1',
          session_id: 's-1',
          persona: 'con',
          team,
          project: 'parser',
          surface: 'cli',
          model: 'claude-sonnet-4-5',
          tier: 'sonnet',
          service_tier: 'standard',
          input_tokens: '1000',
          output_tokens: '200',
          cache_write_5m: '30',
          cache_write_1h: '20',
          cache_read_tokens: '500',
          thinking_tokens: '50',
          cost_micros: '6150',
          price_version: 2,
          reservation_id: 'res-1',
          occurred_at: new Date(OCCURRED_AT),
        },
      ]);
  });

  it('usage records of one batch each get a row, in log order; one with no task or reservation leaves those empty', async () => {
    const team = newKey('t');
    const [a, b] = [randomUUID(), randomUUID()];
    await spec()
      .when(inStream(`usage-${a}`, usage(a, team, { costMicros: '10' })), inStream(`usage-${b}`, usage(b, team, { taskId: 'T-2', costMicros: '20' })))
      .then(ledgerOf(team), [
        { usage_id: a, task_id: null, reservation_id: null, cost_micros: '10' },
        { usage_id: b, task_id: 'T-2', cost_micros: '20' },
      ]);
  });

  it('a usage record seen again under the same usage id stays one row, the first', async () => {
    const team = newKey('t');
    const id = randomUUID();
    await spec()
      .given(inStream(`usage-${id}`, usage(id, team, { costMicros: '10' })))
      .when(inStream(`usage-${id}`, usage(id, team, { costMicros: '99' })))
      .then(ledgerOf(team), [{ usage_id: id, cost_micros: '10' }]);
  });

  it("a rate-limit report is the project's status; a later report replaces it", async () => {
    const project = newKey('p');
    await spec()
      .given(inStream(quotaStreamId(project), rateLimit(project, 0.5, '2025-01-01T10:00:00.000Z')))
      .when(inStream(quotaStreamId(project), rateLimit(project, 0.85, '2025-01-01T11:00:00.000Z')))
      .then(rateLimitOf(project), [
        {
          project,
          info: { status: 'allowed_warning', rateLimitType: 'five_hour', utilization: 0.85, resetsAt: '2025-01-01T15:00:00.000Z', isUsingOverage: false },
          reported_at: new Date('2025-01-01T11:00:00.000Z'),
        },
      ]);
  });
});
