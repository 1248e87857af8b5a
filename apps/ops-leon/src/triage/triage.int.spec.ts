import { randomUUID } from 'node:crypto';
import { createIngestKey, createOpsProject, exceptionGroupStreamId, getBudget, getSpend, ingestException, maySpend, namespacedSubject, recordUsage, setBudget } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { encodeEnvelope, relayHeaders, toEnvelope } from '@headspace/messaging';
import { startTelemetry } from '@headspace/telemetry';
import { waitFor } from '@headspace/testing';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { jetstream } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The governor is the real one: triage spends through it like any model call.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startCostGovernor, type CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
import { report, SCHEMA, startOpsLeon, type OpsLeonHarness } from '../testing/ops-leon-harness';
import { TriageConsumer } from './triage.consumer';
import { TriageWorker } from './triage.worker';

interface Transition {
  complex?: boolean;
  from?: string;
  to?: string;
  reason?: string;
  severity?: string;
  domain?: string;
  persona?: string;
  autoFixable?: boolean;
  hypothesis?: string;
  source?: string;
  models?: string[];
  simulated?: boolean;
  ruleReasons?: string[];
}

const spans: ReadableSpan[] = [];
const collect: SpanProcessor = { onStart: () => undefined, onEnd: (span) => void spans.push(span), forceFlush: async () => undefined, shutdown: async () => undefined };
startTelemetry({ serviceName: 'leon-triage-spec', spanProcessors: [collect] });

/** A pg/SQL failure as a Node app reports it: a query against a missing relation, unhandled. */
const sqlFailure = () =>
  report({
    type: 'QueryFailedError',
    message: 'relation "order_items" does not exist',
    handled: false,
    stack: [
      'QueryFailedError: relation "order_items" does not exist',
      '    at Parser.parseErrorMessage (/srv/shop/node_modules/pg-protocol/dist/parser.js:287:98)',
      '    at Client.query (/srv/shop/node_modules/pg/lib/client.js:526:17)',
      '    at OrderRepository.items (/srv/shop/src/db/order-repository.js:44:21)',
      '    at loadOrder (/srv/shop/src/orders.js:12:11)',
    ].join('\n'),
  });

describe('Leon triage on the simulator, spending through the real cost governor', () => {
  let cg: CostGovernorHarness;
  let h: OpsLeonHarness;
  let asked: Subscription;
  /** Every may-spend the governor was sent (its session ids name the group). */
  const maySpends: string[] = [];

  beforeAll(async () => {
    cg = await startCostGovernor('leontriage');
    h = await startOpsLeon('leontriage', { HS_NAMESPACE: cg.namespace, HS_OPS_TRIAGE: 'model', HS_OPS_TRIAGE_POLL_MS: '100' });
    asked = h.nc.subscribe(maySpend.subject);
    void (async () => {
      for await (const msg of asked) maySpends.push(msg.string());
    })();
  }, 60_000);

  afterAll(async () => {
    asked?.unsubscribe();
    await h?.close();
    await cg?.close();
  });

  const ingest = async (project: string, event: ReturnType<typeof report>) => {
    await h.send(createOpsProject, { project, repository: `/srv/${project}` });
    const key = await h.send(createIngestKey, { project });
    return (await h.send(ingestException, { project, publicKey: key.publicKey, report: event, receivedAt: new Date().toISOString() })).groupId;
  };
  const history = async (groupId: string) => (await h.app.get(EventStore).readStream(exceptionGroupStreamId(groupId))) as Array<RecordedEvent<Transition>>;
  const types = async (groupId: string) => (await history(groupId)).map((e) => e.type);
  const settled = (groupId: string, last: string) => waitFor(async () => (await types(groupId)).includes(last), { timeoutMs: 20_000, message: `${groupId} to reach ${last}` });
  const triaged = async (groupId: string) => (await history(groupId)).find((e) => e.type === 'group.triaged')!.data;
  const spendsFor = (groupId: string) => maySpends.filter((m) => m.includes(groupId));

  it('triages an unhandled pg/SQL exception as database, routed to May, with the model hypothesis, after opened and analysing-started', async () => {
    const spansBefore = spans.length;
    const groupId = await ingest('dbshop', sqlFailure());
    await settled(groupId, 'group.triaged');
    expect((await types(groupId)).slice(0, 3)).toEqual(['group.opened', 'group.analysing-started', 'group.triaged']);
    const verdict = await triaged(groupId);
    expect(verdict).toMatchObject({ from: 'ANALYSING', to: 'ANALYSING', severity: 'error', domain: 'database', persona: 'may', autoFixable: true, source: 'model', simulated: true });
    expect(verdict.hypothesis).toMatch(/^\[simulated\] A query fails in the data layer/);
    expect(verdict.models).toEqual([expect.stringMatching(/^claude-haiku/)]);
    expect(verdict.ruleReasons).toEqual(expect.arrayContaining(['level=error → error', expect.stringMatching(/^domain database:/)]));
    expect(spendsFor(groupId)).toHaveLength(1);
    await cg.caughtUp();
    const spend = await cg.send(getSpend, { groupBy: 'persona', team: 'dbshop' });
    expect(spend.groups).toEqual([expect.objectContaining({ key: 'leon', calls: 1 })]);
    // its chat span is costed with the governor's own price table, to the micro-dollar of the spend
    const chat = spans.slice(spansBefore).filter((s) => s.name.startsWith('chat '));
    expect(chat).toHaveLength(1);
    expect(Number(spend.total.costMicros)).toBeGreaterThan(0);
    expect(Math.round((chat[0]!.attributes['headspace.cost.usd'] as number) * 1e6)).toBe(Number(spend.total.costMicros));
  });

  it('asks the deep model for the root cause when the light one calls the group complex, and records both models', async () => {
    const groupId = await ingest('lockshop', report({ type: 'DatabaseError', message: 'deadlock detected', handled: false, stack: 'DatabaseError: deadlock detected\n    at reserveStock (/srv/shop/src/stock.js:30:9)' }));
    await settled(groupId, 'group.triaged');
    const verdict = await triaged(groupId);
    expect(verdict).toMatchObject({ domain: 'database', persona: 'may', complex: true, autoFixable: true, source: 'model', simulated: true });
    expect(verdict.models).toEqual([expect.stringMatching(/^claude-haiku/), expect.stringMatching(/^claude-sonnet/)]);
    expect(verdict.hypothesis).toMatch(/^\[simulated\] Concurrent requests update the same rows/);
    expect(spendsFor(groupId).map((m) => /leon\.(triage-\w+)\./.exec(m)?.[1])).toEqual(['triage-light', 'triage-deep']);
  });

  it('dismisses an info-level event as noise with the rule that said so, without asking the governor or a model', async () => {
    const groupId = await ingest('chatty', report({ type: 'Message', message: 'cache warmed in 52 ms', level: 'info', stack: undefined }));
    await settled(groupId, 'group.dismissed');
    expect(await types(groupId)).toEqual(['group.opened', 'group.analysing-started', 'group.triaged', 'group.dismissed']);
    expect(await triaged(groupId)).toMatchObject({ severity: 'noise', source: 'rules', models: [], autoFixable: false });
    const dismissed = (await history(groupId)).at(-1)!.data;
    expect(dismissed).toMatchObject({ from: 'ANALYSING', to: 'DISMISSED' });
    expect(dismissed.reason).toMatch(/level=info → noise/);
    expect(spendsFor(groupId)).toEqual([]);
  });

  it('triages by rules alone (source rules, not auto-fixable, the refusal recorded) while the team budget is paused', async () => {
    await cg.send(setBudget, { scope: { kind: 'team', team: 'brokeshop' }, limitUsd: '0.01', setBy: 'spec' });
    const attribution = { sessionId: 'warm-up', persona: 'con', team: 'brokeshop', project: 'brokeshop', surface: 'api' as const };
    await cg.send(recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 9_500, outputTokens: 0 } });
    expect((await cg.send(getBudget, { budgetId: 'team.brokeshop' })).status).toBe('paused');

    const groupId = await ingest('brokeshop', sqlFailure());
    await settled(groupId, 'group.triaged');
    const verdict = await triaged(groupId);
    expect(verdict).toMatchObject({ severity: 'error', domain: 'database', persona: 'may', autoFixable: false, source: 'rules', models: [], simulated: false });
    expect(verdict.ruleReasons!.at(-1)).toMatch(/^model: light model: refused: .*paused/i);
    expect(spendsFor(groupId)).toHaveLength(1);
  });

  it('triages once when group.opened is delivered again (its inbox row lost, as after a crash) and the worker passes again', async () => {
    const groupId = await ingest('twice', sqlFailure());
    await settled(groupId, 'group.triaged');
    const [opened] = await history(groupId);
    await h.db.pool.query(`DELETE FROM ${SCHEMA}.inbox WHERE consumer = $1 AND event_id = $2`, [TriageConsumer.durable, opened.eventId]);
    await jetstream(h.nc).publish(namespacedSubject('hs.evt.ops-leon.group.opened'), encodeEnvelope(toEnvelope(opened)), { msgID: randomUUID(), headers: relayHeaders(opened) });
    await waitFor(
      async () => (await h.db.pool.query(`SELECT 1 FROM ${SCHEMA}.inbox WHERE consumer = $1 AND event_id = $2`, [TriageConsumer.durable, opened.eventId])).rowCount === 1,
      { message: 'the redelivered group.opened to be handled' },
    );
    await h.app.get(TriageWorker).triage(groupId);
    const all = await types(groupId);
    expect(all.filter((t) => t === 'group.analysing-started')).toHaveLength(1);
    expect(all.filter((t) => t === 'group.triaged')).toHaveLength(1);
    expect(spendsFor(groupId)).toHaveLength(1);
  });
});
