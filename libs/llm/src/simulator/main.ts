import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { parseSimulatedLatency, type SimulatedLatency } from './latency';
import { listenSimulator, type RunningSimulator } from './server';
import { loadScenarioDirs } from './scenario';

/** The shipped scenarios: `HEADSPACE_SIMULATOR_SCENARIOS`, else `libs/llm/scenarios` (src or dist). */
export function defaultScenariosDir(): string {
  const fromEnv = process.env.HEADSPACE_SIMULATOR_SCENARIOS?.trim();
  if (fromEnv) return resolve(fromEnv);
  const candidates = [resolve(__dirname, '../../scenarios'), join(process.cwd(), 'libs/llm/scenarios')];
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0];
}

export function extraScenarioDirsFromEnv(env: Record<string, string | undefined> = process.env): string[] {
  return (env.HS_SIMULATOR_SCENARIOS ?? '').split(delimiter).map((d) => d.trim()).filter(Boolean);
}

export interface StartSimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  scenariosDir?: string;
  /**
   * Directories whose scenarios come before the shipped ones (default: `HS_SIMULATOR_SCENARIOS`,
   * separated like PATH) — e.g. an example project's own script of a run.
   */
  extraScenarioDirs?: readonly string[];
  retryAfterMs?: number;
  /** Answer as slowly as a model would (default: `HS_SIMULATOR_LATENCY`, else at once). */
  latency?: SimulatedLatency;
  /** Message Batches: time from create to the last request answered (default: `HS_SIMULATOR_BATCH_MS`, else 1 s). */
  batchProcessingMs?: number;
  /** Print the banner line (default true). */
  announce?: boolean;
  log?: (line: string) => void;
}

/**
 * Loads and validates the scenarios (throws SIMULATOR.SCENARIO_INVALID naming the file and field)
 * and starts the HTTP server.
 */
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const scenariosDir = options.scenariosDir ?? defaultScenariosDir();
  const extra = options.extraScenarioDirs ?? extraScenarioDirsFromEnv();
  const scenarios = loadScenarioDirs([...extra.map((d) => resolve(d)), scenariosDir]);
  const latency = 'latency' in options ? options.latency : parseSimulatedLatency(process.env.HS_SIMULATOR_LATENCY);
  const running = await listenSimulator({
    scenarios,
    port: options.port ?? 0,
    host: options.host,
    retryAfterMs: options.retryAfterMs,
    latency,
    batchProcessingMs: options.batchProcessingMs ?? batchProcessingMsFromEnv(),
  });
  if (options.announce !== false) {
    (options.log ?? ((line: string) => process.stdout.write(`${line}\n`)))(
      `Headspace LLM simulator (simulated responses) listening on ${running.url} ` +
        `(${scenarios.length} scenarios from ${[...extra, scenariosDir].join(', ')})` +
        (latency ? `, answering like a model: first token after ${latency.firstTokenMs} ms, ${latency.outputTokensPerSecond} output tokens/s` : ''),
    );
  }
  return running;
}

function batchProcessingMsFromEnv(): number | undefined {
  const raw = process.env.HS_SIMULATOR_BATCH_MS?.trim();
  const ms = raw ? Number(raw) : NaN;
  return Number.isInteger(ms) && ms >= 0 ? ms : undefined;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i !== -1 ? process.argv[i + 1] : undefined;
}

if (require.main === module) {
  const port = Number(argValue('port') ?? process.env.HEADSPACE_SIMULATOR_PORT ?? 4010);
  const host = argValue('host') ?? process.env.HEADSPACE_SIMULATOR_HOST ?? '127.0.0.1';
  const scenariosDir = argValue('scenarios');
  startSimulator({ port, host, scenariosDir }).then(
    (sim) => {
      const stop = () => void sim.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
