import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runClaudeCode } from '@headspace/agent-runtime';
import { findClaudeCli } from '@headspace/testing';
import { percentile, type BenchRow } from './bench-kit';
import { orchestratorBench, readingScenario } from './orchestrator-bench';
import { LlmBackendProvider } from '../apps/orchestrator/src/sessions/ports/llm-backend.provider';

const TURNS = 6;
const SITUATION = 'bench-cli';

/**
 * Control-plane overhead per Claude Code turn (issue 23): the same scripted session (six Reads, the
 * reflection) run by the real `claude` CLI against the in-process simulator (instant), once bare
 * (runClaudeCode alone: the floor) and once as a Headspace session on the claude-code runtime (the
 * governor's may-spend, every stream line recorded as a turn or tool call and settled with the
 * governor, every hook event answered by the orchestrator's hook endpoint over HTTP, the CLI in the
 * session's bubblewrap sandbox with the model API and the endpoint forwarded in). The difference
 * per turn is Headspace's share; the agent-turn section prints the built-in runtime's beside it.
 */
export async function benchClaudeCodeTurn(options: { quick: boolean }): Promise<BenchRow[]> {
  const binary = findClaudeCli();
  if (!binary) return [{ name: 'claude-code turn: skipped', value: 0, unit: '', note: 'the @anthropic-ai/claude-code binary is not installed (npm ci)' }];
  const bench = await orchestratorBench({ label: 'ccturn', scenarios: { cli: readingScenario(SITUATION, TURNS, { last: 'Done.' }) }, env: { HS_CLAUDE_BINARY: binary } });
  try {
    await mkdir(join(bench.dir, 'home'));
    const { supervisor } = bench;
    const backend = (await bench.app.get(LlmBackendProvider).get()).backend;

    const bare = async () => {
      const t0 = performance.now();
      const run = await runClaudeCode({
        spec: { name: 'bench', role: 'bench', owns: [], learnings: '', tools: ['Read'], task: 'Read the README, again and again.', model: 'sonnet' },
        cwd: bench.ws,
        binary,
        inheritEnv: false,
        env: { HOME: join(bench.dir, 'home'), ANTHROPIC_BASE_URL: backend.baseURL, ANTHROPIC_API_KEY: backend.apiKey, ANTHROPIC_CUSTOM_HEADERS: `X-Headspace-Situation: ${SITUATION}`, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      });
      return { ms: performance.now() - t0, turns: run.result.turnsUsed };
    };
    const session = async () => {
      const sessionId = randomUUID();
      const ended = supervisor.whenEnded(sessionId);
      const t0 = performance.now();
      await supervisor.start({ sessionId, team: bench.team, persona: 'bench', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'claude-code', simulated: true, prompt: 'Read the README, again and again.', workspace: bench.ws, situation: SITUATION, tools: ['Read'] });
      const outcome = await ended;
      return { ms: performance.now() - t0, turns: outcome.turns };
    };
    await bare(); // warm-up: the CLI's first start, the simulator
    await session();
    const rounds = options.quick ? 3 : 10;
    const floor: number[] = [];
    const headspace: number[] = [];
    const extra: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // alternating, so a busy moment of the machine lands on both
      const b = await bare();
      const s = await session();
      floor.push(b.ms / Math.max(1, b.turns));
      headspace.push(s.ms / Math.max(1, s.turns));
      extra.push((s.ms - b.ms) / Math.max(1, s.turns));
    }
    const sort = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const p50 = (xs: number[]) => percentile(sort(xs), 50);
    return [
      { name: `claude-code: wall per CLI turn, bare CLI (floor; ${rounds} sessions of ${TURNS + 1} turns)`, value: p50(floor), unit: 'ms', note: 'runClaudeCode alone against the instant simulator' },
      { name: 'claude-code: wall per CLI turn as a Headspace session', value: p50(headspace), unit: 'ms', baseline: p50(floor), note: 'the same script on the claude-code runtime' },
      { name: 'claude-code: control-plane overhead per CLI turn p50', value: p50(extra), unit: 'ms', note: `max ${sort(extra).at(-1)!.toFixed(1)} ms; the built-in runtime's: see agent-turn` },
    ];
  } finally {
    await bench.close();
  }
}
