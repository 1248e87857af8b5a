import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';
import { benchNats, launchService, natsUrl, type ServiceProcess } from './service-process';
import { AppModule as OrchestratorModule } from '../apps/orchestrator/src/app.module';
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../apps/orchestrator/src/config';
import { SessionSupervisor } from '../apps/orchestrator/src/sessions/session-supervisor';

const TURNS = 12;

/** A scripted session: TURNS turns that each read a file, then the reflection. */
function scenario(): string {
  const steps = Array.from({ length: TURNS }, (_, i) => `  - text: Step ${i + 1}.\n    tool_use:\n      - name: Read\n        input: { file_path: README.md }`);
  const reflection =
    '{"task_result":{"status":"completed","summary":"[simulated] bench","files_changed":[]},"reflection":{"what_worked":"-","what_didnt":"-","confidence":"high"},"suggested_learnings":[],"follow_up":{"needs_human":false}}';
  return [
    'id: bench-turns',
    'persona: bench',
    'situation: bench-turns',
    'steps:',
    ...steps,
    `  - text: |-\n      Done.\n\n      \`\`\`json\n      ${reflection}\n      \`\`\``,
    '',
  ].join('\n');
}

interface TurnRow {
  type: string;
  session_id: string;
  at: string;
  duration: number;
  turn: number;
}

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
  const db = await benchDatabase('agentturn');
  const namespace = `bench-turn-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'hs-bench-turn-'));
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  let orchestrator: NestFastifyApplication | undefined;
  try {
    await mkdir(join(dir, 'scenarios'));
    await mkdir(join(dir, 'ws'));
    await writeFile(join(dir, 'scenarios', 'bench.yaml'), scenario());
    await writeFile(join(dir, 'ws', 'README.md'), '# bench\n');
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace };
    for (const name of ['team-manager', 'cost-governor']) services.push(await launchService(name, env));
    await request(nc, createTeam, { name: 'bench', leadAgentType: 'general-purpose' });
    const config = loadConfig(
      orchestratorConfig,
      { ...env, NATS_URL: natsUrl(), LOG_LEVEL: 'error', HS_SIMULATOR_SCENARIOS: join(dir, 'scenarios'), HS_WORKSPACES_DIR: join(dir, 'runs'), HS_AGENT_HOME: join(dir, 'agents'), ANTHROPIC_API_KEY: '' },
      ORCHESTRATOR,
    );
    orchestrator = await createServiceApp(OrchestratorModule.forRoot(config), { bufferLogs: false });
    await orchestrator.init();
    const supervisor = orchestrator.get(SessionSupervisor);
    const start = (sessionId: string) =>
      supervisor.start({ sessionId, team: 'bench', persona: 'bench', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Read the README, again and again.', workspace: join(dir, 'ws'), situation: 'bench-turns' });
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

    const { rows } = await db.pool.query<TurnRow>(
      `SELECT type, data->>'sessionId' AS session_id, data->>'at' AS at, (data->>'durationMs')::float8 AS duration, (data->>'turn')::int AS turn
         FROM orchestrator.events WHERE type IN ('session.model-called', 'session.tool-called') AND data->>'sessionId' = ANY($1) ORDER BY global_position`,
      [sequential.ids],
    );
    const overheads: number[] = [];
    const withTool: number[] = [];
    for (const id of sequential.ids) {
      const mine = rows.filter((r) => r.session_id === id);
      const calls = mine.filter((r) => r.type === 'session.model-called');
      for (let k = 1; k < calls.length; k++) {
        const tools = mine.filter((r) => r.type === 'session.tool-called' && r.turn === calls[k - 1].turn).reduce((a, r) => a + r.duration, 0);
        const wall = Date.parse(calls[k].at) - Date.parse(calls[k - 1].at) - calls[k].duration;
        overheads.push(wall - tools);
        withTool.push(wall);
      }
    }
    const sorted = overheads.sort((a, b) => a - b);
    const sortedWithTool = withTool.sort((a, b) => a - b);
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
    setSubjectNamespace('');
    await orchestrator?.close();
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
