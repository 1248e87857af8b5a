import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { benchDatabase, percentile, rssMb, type BenchRow } from './bench-kit';
import { benchNats, launchService, natsUrl, type ServiceProcess } from './service-process';
import { AppModule as OrchestratorModule } from '../apps/orchestrator/src/app.module';
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../apps/orchestrator/src/config';
import { SessionSupervisor } from '../apps/orchestrator/src/sessions/session-supervisor';

const TURNS = 6;
/** Like a model: 400 ms to the first token, then 200 tokens/s. */
const LATENCY = '400,200';

function scenario(): string {
  const steps = Array.from({ length: TURNS }, (_, i) => `  - text: Step ${i + 1}.\n    tool_use:\n      - name: Read\n        input: { file_path: README.md }`);
  const reflection =
    '{"task_result":{"status":"completed","summary":"[simulated] fleet","files_changed":[]},"reflection":{"what_worked":"-","what_didnt":"-","confidence":"high"},"suggested_learnings":[],"follow_up":{"needs_human":false}}';
  return ['id: bench-fleet', 'persona: fleet', 'situation: bench-fleet', 'steps:', ...steps, `  - text: |-\n      Done.\n\n      \`\`\`json\n      ${reflection}\n      \`\`\``, ''].join('\n');
}

interface CallRow {
  type: string;
  session_id: string;
  at: string;
  duration: number;
  turn: number;
}

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
  const db = await benchDatabase('fleet');
  const namespace = `bench-fleet-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'hs-bench-fleet-'));
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  let orchestrator: NestFastifyApplication | undefined;
  try {
    await mkdir(join(dir, 'scenarios'));
    await mkdir(join(dir, 'ws'));
    await writeFile(join(dir, 'scenarios', 'fleet.yaml'), scenario());
    await writeFile(join(dir, 'ws', 'README.md'), '# fleet\n');
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace };
    for (const name of ['team-manager', 'cost-governor']) services.push(await launchService(name, env));
    await request(nc, createTeam, { name: 'fleet', leadAgentType: 'general-purpose' });
    const config = loadConfig(
      orchestratorConfig,
      {
        ...env,
        NATS_URL: natsUrl(),
        LOG_LEVEL: 'error',
        HS_SIMULATOR_SCENARIOS: join(dir, 'scenarios'),
        HS_SIMULATOR_LATENCY: LATENCY,
        HS_WORKSPACES_DIR: join(dir, 'runs'),
        HS_AGENT_HOME: join(dir, 'agents'),
        ANTHROPIC_API_KEY: '',
      },
      ORCHESTRATOR,
    );
    orchestrator = await createServiceApp(OrchestratorModule.forRoot(config), { bufferLogs: false });
    await orchestrator.init();
    const supervisor = orchestrator.get(SessionSupervisor);
    const fleet = async (n: number) => {
      const ids = Array.from({ length: n }, () => randomUUID());
      const ended = ids.map((id) => supervisor.whenEnded(id));
      for (const sessionId of ids) {
        await supervisor.start({ sessionId, team: 'fleet', persona: 'fleet', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Read the README, again and again.', workspace: join(dir, 'ws'), situation: 'bench-fleet' });
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
      const { rows: calls } = await db.pool.query<CallRow>(
        `SELECT type, data->>'sessionId' AS session_id, data->>'at' AS at, (data->>'durationMs')::float8 AS duration, (data->>'turn')::int AS turn
           FROM orchestrator.events WHERE type IN ('session.model-called', 'session.tool-called') AND data->>'sessionId' = ANY($1) ORDER BY global_position`,
        [run.ids],
      );
      const overheads: number[] = [];
      for (const id of run.ids) {
        const mine = calls.filter((r) => r.session_id === id);
        const models = mine.filter((r) => r.type === 'session.model-called');
        for (let k = 1; k < models.length; k++) {
          const tools = mine.filter((r) => r.type === 'session.tool-called' && r.turn === models[k - 1].turn).reduce((a, r) => a + r.duration, 0);
          overheads.push(Date.parse(models[k].at) - Date.parse(models[k - 1].at) - models[k].duration - tools);
        }
      }
      overheads.sort((a, b) => a - b);
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
    setSubjectNamespace('');
    await orchestrator?.close();
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
