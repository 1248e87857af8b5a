import { execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { serviceCommand } from '../service-command';
import { serviceProcessEnv } from '../../libs/platform/src/database/service-database-url';
import { spawnOn, type Host } from './hosts';

export const REPO = join(__dirname, '..', '..');

export const PORTS = { gateway: 3000, 'team-manager': 3001, orchestrator: 3002, 'cost-governor': 3003, 'ops-leon': 3004 } as const;
export type ServiceName = keyof typeof PORTS;

export interface Replica {
  service: ServiceName;
  host: Host;
  /** `<service>@hs-mh-<n>`: its SERVICE_INSTANCE_ID as well, so leases in the database name the host. */
  id: string;
  url: string;
  child?: ChildProcess;
  start(): Promise<void>;
  /** SIGTERM, SIGKILL after 5 s. */
  stop(): Promise<void>;
  running(): boolean;
  /** Times it exited while starting and was started again. */
  restarts: number;
}

const READY_TIMEOUT_MS = 240_000;

/**
 * Compiles apps, libs and scripts with SWC into `out` (what scripts/build.sh does for dist/, minus the
 * dashboard), so ten service processes start from JavaScript instead of each compiling TypeScript
 * on two cores. A private folder: dist/ may be another checkout state's, and others use it.
 */
export function compileServices(out: string): void {
  execFileSync(
    'npx',
    [
      'swc', 'apps', 'libs', 'scripts', '-d', out, '--copy-files', '--no-swcrc', '-q',
      '--ignore', '**/*.spec.ts', '--ignore', '**/project.json', '--ignore', '**/*.sh', '--ignore', 'apps/gateway/web/**', '--ignore', 'scripts/multi-host/**',
      '-C', 'jsc.parser.syntax=typescript', '-C', 'jsc.parser.decorators=true',
      '-C', 'jsc.transform.legacyDecorator=true', '-C', 'jsc.transform.decoratorMetadata=true',
      '-C', 'jsc.target=es2023', '-C', 'module.type=commonjs',
      '-C', `jsc.baseUrl=${REPO}`, '-C', 'jsc.paths={"@headspace/*":["libs/*/src/index.ts"]}',
    ],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (!existsSync(join(out, 'apps', 'gateway', 'src', 'main.js'))) throw new Error(`swc wrote no ${out}/apps/gateway/src/main.js`);
}

/** What GET /health/ready said last, per URL: named in a readiness timeout. */
const lastAnswer = new Map<string, string>();

export async function ready(url: string, timeoutMs = 1_500): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text();
    lastAnswer.set(url, `${res.status} ${body.slice(0, 400)}`);
    return res.status === 200;
  } catch (error) {
    lastAnswer.set(url, (error as Error).name);
    return false;
  }
}

/** A replica of `service` on `host`, run from the compiled tree `build` with `env` (the administrator's DATABASE_URL among it). */
export function replica(service: ServiceName, host: Host, build: string, logDir: string, env: NodeJS.ProcessEnv): Replica {
  const id = `${service}@${host.namespace}`;
  const url = `http://${host.address}:${PORTS[service]}`;
  const r: Replica = {
    service,
    host,
    id,
    url,
    running: () => r.child !== undefined && r.child.exitCode === null && r.child.signalCode === null,
    restarts: 0,
    async start() {
      const processEnv = {
        ...serviceProcessEnv(service, env, true),
        HTTP_PORT: String(PORTS[service]),
        SERVICE_NAME: service,
        SERVICE_INSTANCE_ID: id.replace('@', '.'),
      };
      const deadline = Date.now() + READY_TIMEOUT_MS;
      // A replica that exits while starting (e.g. JetStream's API timing out on a busy machine) is
      // started again, as its supervisor would (npm start's, or Kubernetes' restart policy).
      for (;;) {
        const child = spawnOn(host, process.execPath, serviceCommand(service, build, REPO), { cwd: REPO, env: processEnv });
        const log = createWriteStream(join(logDir, `${service}-${host.namespace}.log`), { flags: 'a' });
        child.stdout?.pipe(log, { end: false });
        child.stderr?.pipe(log, { end: false });
        child.once('close', () => log.end());
        r.child = child;
        while (r.running() && Date.now() < deadline && !(await ready(url))) await new Promise((resolve) => setTimeout(resolve, 250));
        if (r.running() && Date.now() < deadline) return;
        if (Date.now() >= deadline) throw new Error(`${id} not ready within ${READY_TIMEOUT_MS / 1000} s (GET /health/ready: ${lastAnswer.get(url)}); logs in ${logDir}`);
        if (++r.restarts > 3) throw new Error(`${id} exited ${r.restarts} times while starting; logs in ${logDir}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
    async stop() {
      const child = r.child;
      if (!child || !r.running()) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
  return r;
}
