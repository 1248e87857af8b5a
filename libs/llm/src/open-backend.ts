import { createLlmClient, type LlmClient, type LlmClientOptions } from './client/client';
import { resolveLlmBackend, type LlmBackend } from './backend';
import { parseSimulatedLatency } from './simulator/latency';
import { extraScenarioDirsFromEnv, startSimulator } from './simulator/main';
import type { RunningSimulator } from './simulator/server';

export interface OpenLlmBackendOptions {
  env?: Record<string, string | undefined>;
  timeoutMs: number;
  maxRetries: number;
  /** Scenarios for the in-process simulator (default: the shipped ones). */
  scenariosDir?: string;
  /** Scenario directories preferred over the shipped ones (default: `HS_SIMULATOR_SCENARIOS` of `env`). */
  extraScenarioDirs?: readonly string[];
  /** Port for the in-process simulator (default: any free port). */
  simulatorPort?: number;
  log?: (line: string) => void;
  /** The price table the client costs its `chat` spans with (see LlmClientOptions.prices). */
  prices?: LlmClientOptions['prices'];
}

export interface OpenLlmBackend {
  client: LlmClient;
  backend: LlmBackend;
  /** Set when running simulated. */
  simulator?: RunningSimulator;
  close(): Promise<void>;
}

/**
 * One call for services: with `ANTHROPIC_API_KEY` → a client for the real API; without → starts
 * the simulator in-process (unless `HEADSPACE_SIMULATOR_URL` points at a running one) and returns
 * a client aimed at it, so the same SDK code path runs offline.
 */
export async function openLlmBackend(options: OpenLlmBackendOptions): Promise<OpenLlmBackend> {
  const env = options.env ?? process.env;
  let simulator: RunningSimulator | undefined;
  let backend = resolveLlmBackend(env);
  if (backend.mode === 'simulated' && backend.baseURL === undefined) {
    simulator = await startSimulator({
      port: options.simulatorPort ?? 0,
      scenariosDir: options.scenariosDir,
      extraScenarioDirs: options.extraScenarioDirs ?? extraScenarioDirsFromEnv(env),
      latency: parseSimulatedLatency(env.HS_SIMULATOR_LATENCY),
      log: options.log,
      announce: options.log !== undefined,
    });
    backend = resolveLlmBackend(env, { simulatorURL: simulator.url });
  }
  const client = createLlmClient({
    apiKey: backend.apiKey,
    baseURL: backend.baseURL,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    ...(options.prices ? { prices: options.prices } : {}),
  });
  return { client, backend, simulator, close: async () => simulator?.close() };
}
