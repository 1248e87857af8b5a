import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { costOf, createTeam, getPrices, sessionStreamId, type EventData, type usageRecorded } from '@headspace/contracts';
import type { EventStore, RecordedEvent } from '@headspace/event-store';
import { priceRowFor } from '@headspace/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
import { readSessionOutcome } from '../../runs/session-outcomes';
import type { SessionEvent } from '../agent-session.decider';
import type { SessionStart, SessionSupervisor } from '../session-supervisor';
import { startSessionsOnSimulator } from '../testing/sessions-on-simulator.harness';

const team = 'long-context';
/** A 1M-window model whose long-context price step is at 200K input tokens (apps/cost-governor/config/prices.yaml). */
const MODEL = 'claude-sonnet-4-6';
const STEP = 200_000;
const WINDOW = 1_000_000;

type Recorded = RecordedEvent & SessionEvent;
type Usage = EventData<typeof usageRecorded>;

let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-longctx-'));
  ({ h, supervisor, store } = await startSessionsOnSimulator({ name: 'longctx', root, scenarios: join(__dirname, 'scenarios') }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
});

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function run(start: SessionStart) {
  const ended = supervisor.whenEnded(start.sessionId);
  await supervisor.start(start);
  const outcome = await ended;
  const events = (await store.readStream(sessionStreamId(start.sessionId))) as Recorded[];
  const of = <T extends SessionEvent['type']>(type: T) => events.filter((e) => e.type === type) as Array<Recorded & Extract<SessionEvent, { type: T }>>;
  return { outcome, events, of };
}

const contextTokens = (u: { inputTokens: number; cacheReadTokens: number; cacheWrite5mTokens: number; cacheWrite1hTokens: number }) =>
  u.inputTokens + u.cacheReadTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens;

const usageOf = async (sessionId: string) =>
  (
    await h.db.pool.query<{ data: Usage }>(`SELECT data FROM cost_governor.events WHERE type = 'usage.recorded' AND data->'attribution'->>'sessionId' = $1 ORDER BY global_position`, [
      sessionId,
    ])
  ).rows.map((r) => r.data);

describe('a long task on a 1M-window model (simulator, real cost governor)', () => {
  it('hands off at 80% of the 200K long-context step, not of the 1M window; the successor finishes; no call is priced at the long-context rate', async () => {
    const workspace = await mkdtemp(join(root, 'ws-'));
    const base = { team, persona: 'sal', kind: 'task', model: MODEL, effort: 'quick', runtime: 'built-in', simulated: true, workspace, situation: 'long-context-handoff' } as const;
    const task = 'Write the quarterly report in report/, one part per file: part-1.md, part-2.md, part-3.md, then index.md.';

    // The first session: its context grows 50K → 100K → 150K → 170K tokens a turn (the scenario's usage).
    const first = { ...base, sessionId: randomUUID(), prompt: task };
    const shift1 = await run(first);
    expect(shift1.outcome.exitReason).toBe('handoff');
    const replies = shift1.of('session.model-called').map((e) => e.data);
    expect(replies.map((r) => r.model)).toEqual(Array(replies.length).fill(MODEL));
    const beforeHandoff = replies.at(-2)!;
    const handoffReply = replies.at(-1)!;
    // It went on at 150K (75% of the step) and handed off after the 170K turn — 85% of 200K, 17% of 1M.
    expect(replies.map((r) => r.usage.inputTokens)).toEqual([50_000, 100_000, 150_000, 170_000, 172_000]);
    const tokensAtHandoff = contextTokens(beforeHandoff.usage);
    expect(tokensAtHandoff).toBeGreaterThanOrEqual(0.8 * STEP);
    expect(tokensAtHandoff).toBeLessThan(STEP);
    expect(tokensAtHandoff / WINDOW).toBeLessThan(0.8);
    expect(contextTokens(replies.at(-3)!.usage)).toBeLessThan(0.8 * STEP);

    // The handoff event records the context share of the 200K working window (so < 200K tokens).
    const [handedOff] = shift1.of('session.handed-off');
    expect(handedOff.data.contextUsedPercent).toBeCloseTo((tokensAtHandoff / STEP) * 100, 5);
    expect(handedOff.data.contextUsedPercent).toBeGreaterThanOrEqual(80);
    expect(handedOff.data.contextUsedPercent).toBeLessThan(100);
    expect((handedOff.data.contextUsedPercent / 100) * STEP).toBeLessThan(STEP);
    expect(contextTokens(handoffReply.usage)).toBeLessThan(STEP);
    expect(handedOff.data.handoff).toMatchObject({ whatRemains: expect.arrayContaining([expect.stringContaining('report/part-3.md')]) });

    // The successor carries on from the handoff (the section a run gives the next session of the persona) and finishes.
    const { outcome } = await readSessionOutcome(store, first.sessionId);
    expect(outcome?.summary).toContain('Write report/part-3.md');
    const second = { ...base, sessionId: randomUUID(), prompt: `${task}\n\n## Handoff From Your Previous Session\n\nYour previous session on this task filled its context and handed over. Carry on from here; the workspace has its work.\n\n${outcome!.summary}` };
    const shift2 = await run(second);
    expect(shift2.outcome.exitReason).toBe('completed');
    expect(shift2.of('session.reflected')[0].data).toMatchObject({ malformed: false, reflection: { task_result: { status: 'completed' } } });
    for (const part of ['part-1.md', 'part-2.md', 'part-3.md', 'index.md']) expect(await readFile(join(workspace, 'report', part), 'utf8')).not.toBe('');

    // Every model call of both sessions was settled at Sonnet 4.6's standard rates, none at the long-context ones.
    await h.caughtUp();
    const { table } = await h.send(getPrices, {});
    const row = priceRowFor(table, MODEL)!;
    expect(row).toMatchObject({ contextWindow: WINDOW, longContext: { thresholdInputTokens: STEP } });
    const standard = { ...row, longContext: undefined };
    for (const [session, shift] of [
      [first.sessionId, shift1],
      [second.sessionId, shift2],
    ] as const) {
      const usage = await usageOf(session);
      expect(usage).toHaveLength(shift.of('session.model-called').length);
      for (const u of usage) {
        expect(u).toMatchObject({ model: MODEL, longContext: false });
        expect(contextTokens(u.tokens)).toBeLessThanOrEqual(STEP);
        const atStandardRates = costOf(standard, table.multipliers, u.tokens, false);
        expect(costOf(row, table.multipliers, u.tokens, false)).toEqual(atStandardRates);
        expect(BigInt(u.costMicros)).toBe(atStandardRates.micros);
      }
    }
  }, 120_000);
});
