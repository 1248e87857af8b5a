import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runClaudeCode } from '@headspace/agent-runtime';
import { createTeam, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams, findClaudeCli } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';
import { benchNats, launchService, natsUrl, type ServiceProcess } from './service-process';
import { AppModule as OrchestratorModule } from '../apps/orchestrator/src/app.module';
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../apps/orchestrator/src/config';
import { LlmBackendProvider } from '../apps/orchestrator/src/sessions/ports/llm-backend.provider';
import { SessionSupervisor } from '../apps/orchestrator/src/sessions/session-supervisor';

const TURNS = 6;
const SITUATION = 'bench-cli';

function scenario(): string {
  const steps = Array.from({ length: TURNS }, (_, i) => `  - text: Step ${i + 1}.\n    tool_use:\n      - name: Read\n        input: { file_path: README.md }`);
  return [`id: ${SITUATION}`, 'persona: "*"', `situation: ${SITUATION}`, 'steps:', ...steps, '  - text: Done.', ''].join('\n');
}

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
  const db = await benchDatabase('ccturn');
  const namespace = `bench-cc-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'hs-bench-cc-'));
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  let orchestrator: NestFastifyApplication | undefined;
  try {
    await mkdir(join(dir, 'scenarios'));
    await mkdir(join(dir, 'ws'));
    await mkdir(join(dir, 'home'));
    await writeFile(join(dir, 'scenarios', 'cli.yaml'), scenario());
    await writeFile(join(dir, 'ws', 'README.md'), '# bench\n');
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace };
    for (const name of ['team-manager', 'cost-governor']) services.push(await launchService(name, env));
    await request(nc, createTeam, { name: 'bench', leadAgentType: 'general-purpose' });
    const config = loadConfig(
      orchestratorConfig,
      { ...env, NATS_URL: natsUrl(), LOG_LEVEL: 'error', HS_SIMULATOR_SCENARIOS: join(dir, 'scenarios'), HS_WORKSPACES_DIR: join(dir, 'runs'), HS_AGENT_HOME: join(dir, 'agents'), HS_CLAUDE_BINARY: binary, ANTHROPIC_API_KEY: '' },
      ORCHESTRATOR,
    );
    orchestrator = await createServiceApp(OrchestratorModule.forRoot(config), { bufferLogs: false });
    await orchestrator.init();
    const supervisor = orchestrator.get(SessionSupervisor);
    const backend = (await orchestrator.get(LlmBackendProvider).get()).backend;

    const bare = async () => {
      const t0 = performance.now();
      const run = await runClaudeCode({
        spec: { name: 'bench', role: 'bench', owns: [], learnings: '', tools: ['Read'], task: 'Read the README, again and again.', model: 'sonnet' },
        cwd: join(dir, 'ws'),
        binary,
        inheritEnv: false,
        env: { HOME: join(dir, 'home'), ANTHROPIC_BASE_URL: backend.baseURL, ANTHROPIC_API_KEY: backend.apiKey, ANTHROPIC_CUSTOM_HEADERS: `X-Headspace-Situation: ${SITUATION}`, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      });
      return { ms: performance.now() - t0, turns: run.result.turnsUsed };
    };
    const session = async () => {
      const sessionId = randomUUID();
      const ended = supervisor.whenEnded(sessionId);
      const t0 = performance.now();
      await supervisor.start({ sessionId, team: 'bench', persona: 'bench', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'claude-code', simulated: true, prompt: 'Read the README, again and again.', workspace: join(dir, 'ws'), situation: SITUATION, tools: ['Read'] });
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
    setSubjectNamespace('');
    await orchestrator?.close();
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
