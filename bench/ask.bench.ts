import { randomUUID } from 'node:crypto';
import { askCompleted, askFailed, sessionModelCalled, startAsk } from '@headspace/contracts';
import { decodeEnvelope, request } from '@headspace/messaging';
import type { Pool } from 'pg';
import { percentile, type BenchRow } from './bench-kit';
import { orchestratorBench, readingScenario, turnOverheads } from './orchestrator-bench';
import { benchNats } from './service-process';

const TURNS = 6;
const PROMPT = 'Read the README, again and again.';

/**
 * Control-plane overhead of `ask` (issue 24), beside agent-turn's figures: from the start-ask
 * command to the first turn on the event bus — what `headspace ask` streams first — minus that
 * model call itself (the simulator answers at once: its recorded call time is the bare-call
 * baseline), and per turn after that (the same measure as agent-turn's). The first figure holds
 * what an ask adds before a session: routing through the cost governor, recording the ask, the
 * checkout and worktree of the workspace, recording and launching the session, and the relay to
 * JetStream. Asks run one after another.
 */
export async function benchAsk(options: { quick: boolean }): Promise<BenchRow[]> {
  const bench = await orchestratorBench({ label: 'ask', scenarios: { ask: readingScenario('ask', TURNS) }, env: { HS_SOURCE_ROOTS: '/' } });
  const nc = await benchNats('bench-ask');
  const firstTurn = new Map<string, () => void>();
  const ended = new Map<string, () => void>();
  const onEvent = (handlers: Map<string, () => void>, key: (data: Record<string, string>) => string) => (_: unknown, msg?: { data: Uint8Array }) => {
    if (!msg) return;
    const data = decodeEnvelope(msg.data).data as Record<string, string>;
    handlers.get(key(data))?.();
  };
  nc.subscribe(sessionModelCalled.subject, { callback: (e, m) => onEvent(firstTurn, (d) => d.sessionId)(e, m) });
  for (const def of [askCompleted, askFailed]) nc.subscribe(def.subject, { callback: (e, m) => onEvent(ended, (d) => d.askId)(e, m) });
  await nc.flush();
  try {
    const one = async () => {
      const askId = `bench-${randomUUID().slice(0, 8)}`;
      const sessionId = `${askId}.ask.a1`;
      const first = new Promise<number>((resolve) => firstTurn.set(sessionId, () => resolve(performance.now())));
      const end = new Promise<void>((resolve) => ended.set(askId, resolve));
      const t0 = performance.now();
      await request(nc, startAsk, { askId, team: bench.team, prompt: PROMPT, workspace: bench.ws }, { commandId: randomUUID() });
      const replied = performance.now() - t0;
      const toFirst = (await first) - t0;
      await end;
      firstTurn.delete(sessionId);
      ended.delete(askId);
      return { askId, sessionId, replied, toFirst };
    };
    await one(); // warm-up: JIT, pools, git, the simulator
    const runs = [];
    for (let i = 0; i < (options.quick ? 4 : 20); i++) runs.push(await one());
    const { rows } = await bench.pool.query<{ session_id: string; duration: number }>(
      `SELECT data->>'sessionId' AS session_id, (data->>'durationMs')::float8 AS duration FROM orchestrator.events WHERE type = 'session.model-called' AND (data->>'turn')::int = 1 AND data->>'sessionId' = ANY($1)`,
      [runs.map((r) => r.sessionId)],
    );
    const bare = new Map(rows.map((r) => [r.session_id, r.duration]));
    const asc = (a: number, b: number) => a - b;
    const toFirst = runs.map((r) => r.toFirst - (bare.get(r.sessionId) ?? 0)).sort(asc);
    const bareCalls = [...bare.values()].sort(asc);
    const replied = runs.map((r) => r.replied).sort(asc);
    const { overhead } = await turnOverheads(bench.pool, runs.map((r) => r.sessionId));
    const phases = await phaseTimes(bench.pool, runs.map((r) => r.askId));
    return [
      { name: `ask: overhead to the first streamed turn p50 (${runs.length} asks, simulator instant)`, value: percentile(toFirst, 50), unit: 'ms', note: `p99 ${percentile(toFirst, 99).toFixed(1)} ms; route + record + checkout + session start + relay, the model call taken out` },
      { name: 'ask: start-ask reply (routed and recorded)', value: percentile(replied, 50), unit: 'ms', note: `p99 ${percentile(replied, 99).toFixed(1)} ms` },
      { name: 'ask: bare simulator call (first turn, as recorded)', value: percentile(bareCalls, 50), unit: 'ms', note: `p99 ${percentile(bareCalls, 99).toFixed(1)} ms` },
      {
        name: 'ask: where the time to the first model call goes, p50',
        value: phases.started + phases.checkout + phases.launch,
        unit: 'ms',
        note: `ask.started → checkout made and session recorded ${phases.checkout.toFixed(0)} ms → session.started ${phases.launch.toFixed(0)} ms → first call begins ${phases.started.toFixed(0)} ms`,
      },
      { name: `ask: control-plane overhead per turn p50 (${overhead.length} turns)`, value: percentile(overhead, 50), unit: 'ms', note: `p99 ${percentile(overhead, 99).toFixed(1)} ms; compare agent-turn's per-turn row` },
    ];
  } finally {
    await nc.close();
    await bench.close();
  }
}

/** p50 of each step between `ask.started` and the start of the first model call, from the recorded times. */
async function phaseTimes(pool: Pool, askIds: string[]): Promise<{ checkout: number; launch: number; started: number }> {
  const { rows } = await pool.query<{ ask: string; session: string; started: string; first: string }>(
    `SELECT a.data->>'startedAt' AS ask, s.data->>'at' AS session, ss.data->>'startedAt' AS started,
            ((m.data->>'at')::timestamptz - ((m.data->>'durationMs')::float8 * interval '1 millisecond'))::text AS first
       FROM orchestrator.events a
       JOIN orchestrator.events s ON s.stream_id = a.stream_id AND s.type = 'ask.session-started'
       JOIN orchestrator.events ss ON ss.type = 'session.started' AND ss.data->>'sessionId' = s.data->>'sessionId'
       JOIN orchestrator.events m ON m.type = 'session.model-called' AND m.data->>'sessionId' = s.data->>'sessionId' AND (m.data->>'turn')::int = 1
      WHERE a.type = 'ask.started' AND a.data->>'askId' = ANY($1)`,
    [askIds],
  );
  const p50 = (values: number[]) => percentile(values.sort((a, b) => a - b), 50);
  const ms = (from: string, to: string) => Date.parse(to) - Date.parse(from);
  return { checkout: p50(rows.map((r) => ms(r.ask, r.session))), launch: p50(rows.map((r) => ms(r.session, r.started))), started: p50(rows.map((r) => ms(r.started, r.first))) };
}
