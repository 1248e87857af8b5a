import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunView } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { startGatewayHarness, type GatewayHarness } from '../../testing/gateway-harness';

export const REPO_ROOT = resolve(__dirname, '../../../../..');

export interface RunHarness {
  h: GatewayHarness;
  /** The spec's own temporary directory: `runs/` (workspaces), `agents/` (agent home), `projects/` (sources). */
  dir: string;
  view(team: string, runId: string): Promise<RunView>;
  /** Polls the run until `done` holds; a failed run throws with its view. */
  until(team: string, runId: string, done: (view: RunView) => boolean, what: string, timeoutMs?: number): Promise<RunView>;
  close(): Promise<void>;
}

/**
 * The gateway with the orchestrator and the cost governor behind it, for run specs: workspaces and
 * the agent home in a fresh temporary directory, fast sweeps, the simulator playing `scenarios`
 * (an `examples/scenarios/<name>` folder), and runs allowed from `<dir>/projects` when
 * `sourceRoots` (otherwise the default roots, the checkout's `examples/`).
 */
export async function startRunHarness(opts: { label: string; scenarios?: string; sourceRoots?: boolean; env?: Record<string, string> }): Promise<RunHarness> {
  const dir = await mkdtemp(join(tmpdir(), `hs-${opts.label}-`));
  if (opts.sourceRoots) await mkdir(join(dir, 'projects'), { recursive: true });
  const h = await startGatewayHarness({
    label: opts.label,
    orchestrator: true,
    costGovernor: true,
    env: {
      HS_WORKSPACES_DIR: join(dir, 'runs'),
      HS_AGENT_HOME: join(dir, 'agents'),
      RUN_SWEEP_MS: '500',
      SESSION_SWEEP_MS: '500',
      ...(opts.scenarios ? { HS_SIMULATOR_SCENARIOS: join(REPO_ROOT, 'examples', 'scenarios', opts.scenarios) } : {}),
      ...(opts.sourceRoots ? { HS_SOURCE_ROOTS: join(dir, 'projects') } : {}),
      ...opts.env,
    },
  });
  const view = async (team: string, runId: string) => (await h.call({ method: 'GET', url: `/api/v1/teams/${team}/runs/${runId}` }, h.adminToken)).json() as RunView;
  return {
    h,
    dir,
    view,
    until: (team, runId, done, what, timeoutMs = 240_000) =>
      waitFor(
        async () => {
          const v = await view(team, runId);
          if (v.phase === 'failed') throw new Error(`run failed: ${JSON.stringify(v)}`);
          return done(v) ? v : undefined;
        },
        { timeoutMs, intervalMs: 200, message: what },
      ),
    close: async () => {
      await h.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
