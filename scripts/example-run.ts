/**
 * The main job of `npm start`: with the platform up, the team runs the example in `examples/` —
 * word-stats and its GOAL.md — through the gateway, exactly as `headspace run` does, with live
 * progress and the end-of-run summary. Offline (no ANTHROPIC_API_KEY) the model is the simulator
 * playing `examples/scenarios/word-stats/` (and `examples/scenarios/ops-demo/` for Leon's demo),
 * and everything says "simulated".
 */
import { ApiClient, followRun, processIo, startRunFromGoal, type RunSummary } from '@headspace/cli';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { delimiter, join } from 'node:path';

export const EXAMPLE = {
  goal: join('examples', 'word-stats', 'GOAL.md'),
  scenarios: join('examples', 'scenarios', 'word-stats'),
  team: 'word-stats',
};

/** What the simulator plays for Leon's demo (`headspace ops demo`): triage and the fix run of examples/ops/demo-app. */
export const OPS_DEMO_SCENARIOS = join('examples', 'scenarios', 'ops-demo');

/** The admin token `npm start` gives the gateway, kept (mode 0600) in `.headspace/admin-token` so every start reuses it. */
export function adminToken(repo: string): string {
  if (process.env.HS_ADMIN_TOKEN) return process.env.HS_ADMIN_TOKEN;
  const file = join(repo, '.headspace', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(join(repo, '.headspace'), { recursive: true });
  const token = `hst_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/** Environment the services need for the example run (merged under whatever the caller set). */
export function exampleEnv(repo: string): Record<string, string> {
  return {
    HS_ADMIN_TOKEN: adminToken(repo),
    HS_WORKSPACES_DIR: join(repo, '.headspace', 'runs'),
    HS_AGENT_HOME: join(repo, '.headspace', 'agents'),
    ...(process.env.ANTHROPIC_API_KEY ? {} : { HS_SIMULATOR_SCENARIOS: [EXAMPLE.scenarios, OPS_DEMO_SCENARIOS].map((dir) => join(repo, dir)).join(delimiter) }),
  };
}

export async function runExample(repo: string, gatewayUrl: string, signal: AbortSignal): Promise<RunSummary | undefined> {
  const api = new ApiClient(gatewayUrl, adminToken(repo));
  const { runId, team } = await startRunFromGoal(api, { goalFile: join(repo, EXAMPLE.goal), team: EXAMPLE.team, mode: 'v3' });
  process.stdout.write(`\nThe team is working on examples/word-stats (run ${runId}); follow it elsewhere with: npx headspace runs follow ${runId} -t ${team}\n\n`);
  return followRun(api, processIo, { team, runId, signal });
}
