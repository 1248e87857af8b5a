import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Pool } from 'pg';
import { benchDatabase } from './bench-kit';
import { benchNats, launchService, natsUrl, type ServiceProcess } from './service-process';
import { AppModule as OrchestratorModule } from '../apps/orchestrator/src/app.module';
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../apps/orchestrator/src/config';
import { SessionSupervisor } from '../apps/orchestrator/src/sessions/session-supervisor';

/** A scripted session for `situation`: `turns` turns that each Read README.md, then `last` (the reflection, or plain text). */
export function readingScenario(situation: string, turns: number, opts: { persona?: string; last?: string } = {}): string {
  const steps = Array.from({ length: turns }, (_, i) => `  - text: Step ${i + 1}.\n    tool_use:\n      - name: Read\n        input: { file_path: README.md }`);
  const last = opts.last ?? reflectionText(situation);
  return [`id: ${situation}`, `persona: ${opts.persona ?? '"*"'}`, `situation: ${situation}`, 'steps:', ...steps, `  - text: |-\n${last.replace(/^/gm, '      ')}`, ''].join('\n');
}

function reflectionText(summary: string): string {
  const reflection = `{"task_result":{"status":"completed","summary":"[simulated] ${summary}","files_changed":[]},"reflection":{"what_worked":"-","what_didnt":"-","confidence":"high"},"suggested_learnings":[],"follow_up":{"needs_human":false}}`;
  return `Done.\n\n\`\`\`json\n${reflection}\n\`\`\``;
}

export interface OrchestratorBench {
  dir: string;
  /** The workspace sessions run in: holds README.md. */
  ws: string;
  team: string;
  pool: Pool;
  supervisor: SessionSupervisor;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

/**
 * What the session benches share: a fresh database and subject namespace, the team-manager and cost
 * governor as processes, a team, the scenarios in `scenarios`, and the orchestrator in this process
 * (to start sessions on its supervisor directly).
 */
export async function orchestratorBench(opts: { label: string; scenarios: Record<string, string>; env?: Record<string, string> }): Promise<OrchestratorBench> {
  const db = await benchDatabase(opts.label);
  const namespace = `bench-${opts.label}-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), `hs-bench-${opts.label}-`));
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  let app: NestFastifyApplication | undefined;
  const close = async () => {
    setSubjectNamespace('');
    await app?.close();
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await mkdir(join(dir, 'scenarios'));
    await mkdir(join(dir, 'ws'));
    for (const [name, text] of Object.entries(opts.scenarios)) await writeFile(join(dir, 'scenarios', `${name}.yaml`), text);
    await writeFile(join(dir, 'ws', 'README.md'), `# ${opts.label}\n`);
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace };
    for (const name of ['team-manager', 'cost-governor']) services.push(await launchService(name, env));
    await request(nc, createTeam, { name: 'bench', leadAgentType: 'general-purpose' });
    const config = loadConfig(
      orchestratorConfig,
      {
        ...env,
        NATS_URL: natsUrl(),
        LOG_LEVEL: 'error',
        HS_SIMULATOR_SCENARIOS: join(dir, 'scenarios'),
        HS_WORKSPACES_DIR: join(dir, 'runs'),
        HS_AGENT_HOME: join(dir, 'agents'),
        ANTHROPIC_API_KEY: '',
        ...opts.env,
      },
      ORCHESTRATOR,
    );
    app = await createServiceApp(OrchestratorModule.forRoot(config), { bufferLogs: false });
    await app.init();
    return { dir, ws: join(dir, 'ws'), team: 'bench', pool: db.pool, supervisor: app.get(SessionSupervisor), app, close };
  } catch (error) {
    await close();
    throw error;
  }
}

interface CallRow {
  type: string;
  session_id: string;
  at: string;
  duration: number;
  turn: number;
}

/**
 * Per turn of the given sessions (from their recorded model and tool calls): `overhead` is the wall
 * between two model calls minus the second call and the tools of the turn between; `withTool` keeps
 * the tools in. Both sorted ascending.
 */
export async function turnOverheads(pool: Pool, sessionIds: string[]): Promise<{ overhead: number[]; withTool: number[] }> {
  const { rows } = await pool.query<CallRow>(
    `SELECT type, data->>'sessionId' AS session_id, data->>'at' AS at, (data->>'durationMs')::float8 AS duration, (data->>'turn')::int AS turn
       FROM orchestrator.events WHERE type IN ('session.model-called', 'session.tool-called') AND data->>'sessionId' = ANY($1) ORDER BY global_position`,
    [sessionIds],
  );
  const overhead: number[] = [];
  const withTool: number[] = [];
  for (const id of sessionIds) {
    const mine = rows.filter((r) => r.session_id === id);
    const calls = mine.filter((r) => r.type === 'session.model-called');
    for (let k = 1; k < calls.length; k++) {
      const tools = mine.filter((r) => r.type === 'session.tool-called' && r.turn === calls[k - 1]!.turn).reduce((a, r) => a + r.duration, 0);
      const wall = Date.parse(calls[k]!.at) - Date.parse(calls[k - 1]!.at) - calls[k]!.duration;
      overhead.push(wall - tools);
      withTool.push(wall);
    }
  }
  const asc = (a: number, b: number) => a - b;
  return { overhead: overhead.sort(asc), withTool: withTool.sort(asc) };
}
