import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Checked without Docker (none on this machine): the Dockerfile and compose file as written, and the
// entrypoint script run by sh against a stand-in dist/.
const root = join(__dirname, '..', '..', '..', '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const runtimeStage = dockerfile.slice(dockerfile.search(/^FROM .* AS runtime$/m));
const WORK = '/var/lib/headspace';

const home = mkdtempSync(join(tmpdir(), 'hs-entrypoint-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const file = (path: string, text: string) => {
  mkdirSync(dirname(join(home, path)), { recursive: true });
  writeFileSync(join(home, path), text);
};
file('dist/libs/telemetry/src/preload.js', `process.stdout.write('preloaded ' + process.env.OTEL_SERVICE_NAME + '\\n');`);
for (const app of ['gateway', 'orchestrator']) file(`dist/apps/${app}/src/main.js`, `process.stdout.write('${app} ' + JSON.stringify(process.argv.slice(2)) + '\\n');`);
file('dist/scripts/migrate.js', `process.stdout.write('migrated\\n');`);

const entrypoint = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('sh', [join(root, 'deploy', 'docker-entrypoint.sh'), ...args], { env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HEADSPACE_HOME: home, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('the container image (issue 28 scope 2)', () => {
  it('runs as the node user with git installed and a work directory that user owns for run checkouts and agent homes', () => {
    expect(runtimeStage).toMatch(/apt-get install[^\n]*\bgit\b/);
    expect(runtimeStage).toMatch(new RegExp(`HS_WORKSPACES_DIR=${WORK}/runs`));
    expect(runtimeStage).toMatch(new RegExp(`HS_AGENT_HOME=${WORK}/agents`));
    expect(runtimeStage).toMatch(new RegExp(`mkdir -p ${WORK}/runs ${WORK}/agents`));
    expect(runtimeStage).toMatch(new RegExp(`chown -R node:node ${WORK}`));
    const user = [...runtimeStage.matchAll(/^USER (\S+)$/gm)].at(-1)?.[1];
    expect(user).toBe('node');
    // the directory is made before the switch to node (root makes it, node owns it)
    expect(runtimeStage.indexOf(`chown -R node:node ${WORK}`)).toBeLessThan(runtimeStage.lastIndexOf('USER node'));
  });

  it('gives the orchestrator a named volume at that work directory in docker compose', () => {
    const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { volumes?: string[]; command?: string[] }>; volumes: Record<string, unknown> };
    expect(compose.services.orchestrator!.volumes).toContain(`orchestrator-work:${WORK}`);
    expect(Object.keys(compose.volumes)).toContain('orchestrator-work');
  });

  it('starts the named service under the telemetry preload with its arguments, and names it for OpenTelemetry', async () => {
    const run = await entrypoint(['orchestrator', '--inspect-nothing', 'x']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('preloaded orchestrator\norchestrator ["--inspect-nothing","x"]\n');
  });

  it('starts the image’s APP without arguments, runs the migrations on `migrate`, and refuses no app at all', async () => {
    expect((await entrypoint([], { APP: 'gateway' })).stdout).toBe('preloaded gateway\ngateway []\n');
    expect((await entrypoint(['migrate'])).stdout).toBe('migrated\n');
    const none = await entrypoint([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/usage: headspace-entrypoint gateway\|team-manager\|orchestrator/);
  });
});
