import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { groupStates } from '@headspace/contracts';
import { migrate } from '@headspace/event-store';
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, metricSamples, metricValue, scrapeMetrics, waitFor, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCEPTION_GROUPS_MAX_AGE_MS, ExceptionGroupsGauge, groupSeverityLabels } from './exception-groups-gauge';

const schema = 'leon_groups_gauge';
let db: TestDatabase;

beforeAll(async () => {
  startTelemetry({ serviceName: 'exception-groups-gauge-spec', env: {} });
  db = await createTestDatabase('leon_groups_gauge');
  await migrate(db.pool, { schema, dirs: [join(__dirname, 'migrations')] });
});
afterAll(async () => {
  await db?.drop();
  await shutdownTelemetry();
});

const group = (state: string, severity: string | null) =>
  db.pool.query(
    `INSERT INTO ${schema}.exception_groups (group_id, project, project_id, fingerprint, state, type, title, level, severity, first_seen, last_seen, updated_at)
     VALUES ($1, 'shop', 'p1', $1, $2, 'TypeError', 'boom', 'error', $3, now(), now(), now())`,
    [randomUUID(), state, severity],
  );

describe('headspace.ops.exception_groups', () => {
  it("counts Leon's exception groups by severity and state from the read model, every pair exported", async () => {
    await Promise.all([group('NEW', null), group('NEW', null), group('ANALYSING', 'critical'), group('FIX_PROPOSED', 'critical'), group('RESOLVED', 'warning')]);
    const gauge = new ExceptionGroupsGauge(db.pool, schema);
    gauge.onApplicationBootstrap();
    try {
      const text = await scrapeMetrics();
      const value = (severity: string, state: string) => metricValue(text, 'headspace_ops_exception_groups', { severity, state });
      expect(value('untriaged', 'NEW')).toBe(2);
      expect(value('critical', 'ANALYSING')).toBe(1);
      expect(value('critical', 'FIX_PROPOSED')).toBe(1);
      expect(value('warning', 'RESOLVED')).toBe(1);
      expect(value('noise', 'DISMISSED')).toBe(0);
      expect(metricSamples(text, 'headspace_ops_exception_groups')).toHaveLength(groupSeverityLabels.length * groupStates.length);

      // A group moving on shows within the cache's age.
      await db.pool.query(`UPDATE ${schema}.exception_groups SET state = 'FIX_IN_PROGRESS' WHERE state = 'FIX_PROPOSED'`);
      await waitFor(
        async () => {
          const now = await scrapeMetrics();
          return (
            metricValue(now, 'headspace_ops_exception_groups', { severity: 'critical', state: 'FIX_PROPOSED' }) === 0 &&
            metricValue(now, 'headspace_ops_exception_groups', { severity: 'critical', state: 'FIX_IN_PROGRESS' }) === 1
          );
        },
        { timeoutMs: 30_000 + EXCEPTION_GROUPS_MAX_AGE_MS, message: 'the moved group to be counted in its new state' },
      );
    } finally {
      gauge.onApplicationShutdown();
    }
  });
});
