import { randomUUID } from 'node:crypto';
import { percentile, type BenchRow } from './bench-kit';
import { orchestratorBench, readingScenario, turnOverheads } from './orchestrator-bench';

const TURNS = 12;
const SITUATION = 'bench-turns';

/**
 * Control-plane overhead of an agent turn: everything between two model calls except the model
 * call and the tool call — the cost governor's may-spend and record-usage over NATS, the mailbox and
 * recording every step in the session's stream. A second row keeps the tool call in (a Read through
 * the hook engine and the permission checks), i.e. turn wall time minus the model call. The simulator
 * answers at once, so the model's share is ~1 ms. The team-manager and cost governor run as
 * processes, the orchestrator in this process (to start sessions on its supervisor directly).
 * Overhead is measured on sessions run one after another (a turn's cost, not a share of ten);
 * turns/s on ten at once. Target: overhead p99 < 20 ms.
 */
export async function benchAgentTurn(options: { quick: boolean }): Promise<BenchRow[]> {
  const bench = await orchestratorBench({ label: 'agentturn', scenarios: { bench: readingScenario(SITUATION, TURNS, { persona: 'bench' }) } });
  try {
    const { supervisor } = bench;
    const start = (sessionId: string) =>
      supervisor.start({ sessionId, team: bench.team, persona: 'bench', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Read the README, again and again.', workspace: bench.ws, situation: SITUATION });
    /** `n` sessions at once (start() returns once a session is launched, not when it ends). */
    const concurrently = async (n: number) => {
      const ids = Array.from({ length: n }, () => randomUUID());
      const ended = ids.map((id) => supervisor.whenEnded(id));
      for (const sessionId of ids) await start(sessionId);
      const outcomes = await Promise.all(ended);
      return { ids, turns: outcomes.reduce((a, o) => a + o.turns, 0) };
    };
    /** `n` sessions one after another: each turn's overhead is its own, not shared with other sessions. */
    const oneByOne = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const sessionId = randomUUID();
        const ended = supervisor.whenEnded(sessionId);
        await start(sessionId);
        await ended;
        ids.push(sessionId);
      }
      return { ids };
    };
    await oneByOne(2); // warm-up: JIT, pools, the simulator
    const sequential = await oneByOne(options.quick ? 3 : 25); // 300 turns: a p99 that two stray pauses of the machine cannot make on their own
    const t0 = performance.now();
    const concurrent = await concurrently(10);
    const wall = performance.now() - t0;

    const { overhead: sorted, withTool: sortedWithTool } = await turnOverheads(bench.pool, sequential.ids);
    const p99 = percentile(sorted, 99);
    return [
      { name: `control-plane overhead per agent turn p50 (${sorted.length} turns, simulator instant)`, value: percentile(sorted, 50), unit: 'ms', note: `p99 ${p99.toFixed(1)} ms (target < 20 ms)` },
      {
        name: 'turn wall time minus the model call p50 (the Read tool, its hooks and permission checks included)',
        value: percentile(sortedWithTool, 50),
        unit: 'ms',
        note: `p99 ${percentile(sortedWithTool, 99).toFixed(1)} ms`,
      },
      { name: 'agent turns/s with 10 concurrent sessions', value: concurrent.turns / (wall / 1000), unit: 'turns/s', note: `${concurrent.turns} turns in ${(wall / 1000).toFixed(2)} s` },
    ];
  } finally {
    await bench.close();
  }
}
