import { randomUUID } from 'node:crypto';
import { percentile, rssMb, type BenchRow } from './bench-kit';
import { orchestratorBench, readingScenario, turnOverheads } from './orchestrator-bench';

const TURNS = 6;
const SITUATION = 'bench-fleet';
/** Like a model: 400 ms to the first token, then 200 tokens/s. */
const LATENCY = '400,200';

/**
 * The fleet (issue 22): 10, 50 and 200 sessions at once on one orchestrator, the simulator answering
 * like a model (HS_SIMULATOR_LATENCY=400,200), the team-manager and cost governor as processes. Per
 * size: control-plane overhead per turn (wall between two model calls minus the model call and the
 * tool calls: the governor's may-spend and usage, the mailbox, recording every step), the
 * orchestrator's CPU per turn (this process: the orchestrator and its in-process simulator) and its
 * RSS growth per active session (peak while they run, over the idle RSS before). Targets at 200:
 * overhead p99 < 50 ms, orchestrator RSS < 400 MB.
 */
export async function benchFleet(options: { quick: boolean }): Promise<BenchRow[]> {
  const bench = await orchestratorBench({ label: 'fleet', scenarios: { fleet: readingScenario(SITUATION, TURNS, { persona: 'fleet' }) }, env: { HS_SIMULATOR_LATENCY: LATENCY } });
  try {
    const { supervisor } = bench;
    const fleet = async (n: number) => {
      const ids = Array.from({ length: n }, () => randomUUID());
      const ended = ids.map((id) => supervisor.whenEnded(id));
      for (const sessionId of ids) {
        await supervisor.start({ sessionId, team: bench.team, persona: 'fleet', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Read the README, again and again.', workspace: bench.ws, situation: SITUATION });
      }
      const outcomes = await Promise.all(ended);
      return { ids, turns: outcomes.reduce((a, o) => a + o.turns, 0) };
    };
    await fleet(2); // warm-up: JIT, pools, the simulator
    const rows: BenchRow[] = [];
    for (const size of options.quick ? [5, 10] : [10, 50, 200]) {
      global.gc?.();
      const idleRss = rssMb();
      let peakRss = idleRss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb())), 100);
      const cpu0 = process.cpuUsage();
      const run = await fleet(size);
      const cpu = process.cpuUsage(cpu0);
      clearInterval(sampler);
      const { overhead: overheads } = await turnOverheads(bench.pool, run.ids);
      const p99 = percentile(overheads, 99);
      const target = size === 200 ? ' (target < 50 ms)' : '';
      rows.push(
        { name: `fleet ${size} sessions: control-plane overhead per turn p50`, value: percentile(overheads, 50), unit: 'ms', note: `p99 ${p99.toFixed(1)} ms${target}; ${overheads.length} turns` },
        { name: `fleet ${size} sessions: orchestrator CPU per turn`, value: (cpu.user + cpu.system) / 1000 / Math.max(1, run.turns), unit: 'ms', note: `${run.turns} turns; includes the in-process simulator` },
        {
          name: `fleet ${size} sessions: orchestrator RSS per active session`,
          value: (peakRss - idleRss) / size,
          unit: 'MB',
          note: `peak ${peakRss.toFixed(0)} MB over idle ${idleRss.toFixed(0)} MB${size === 200 ? ' (target peak < 400 MB)' : ''}`,
        },
      );
    }
    return rows;
  } finally {
    await bench.close();
  }
}
