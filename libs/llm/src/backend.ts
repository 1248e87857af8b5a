/** Where model calls go. `simulated` means the in-process Headspace simulator. */
export interface LlmBackend {
  mode: 'anthropic' | 'simulated';
  /** undefined = the SDK default (https://api.anthropic.com). */
  baseURL: string | undefined;
  apiKey: string;
}

/** The placeholder key sent to the simulator (it accepts any key and never checks it). */
export const SIMULATOR_API_KEY = 'sk-headspace-simulated';

/**
 * Picks the backend from the environment. With `ANTHROPIC_API_KEY` set: the real API (or
 * `ANTHROPIC_BASE_URL` if set). Without it: the simulator, whose URL the caller passes in after
 * starting it in-process (`startSimulator`), so offline runs exercise the exact SDK code path.
 * The returned object holds the key: log `describeLlmBackend(backend)` instead, never the object.
 */
export function resolveLlmBackend(
  env: Record<string, string | undefined> = process.env,
  opts: { simulatorURL?: string } = {},
): LlmBackend {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (apiKey) {
    return { mode: 'anthropic', baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined, apiKey };
  }
  return {
    mode: 'simulated',
    baseURL: opts.simulatorURL ?? (env.HEADSPACE_SIMULATOR_URL?.trim() || undefined),
    apiKey: SIMULATOR_API_KEY,
  };
}

/** A loggable description of a backend: mode and URL, the key redacted. */
export function describeLlmBackend(backend: LlmBackend): { mode: LlmBackend['mode']; baseURL: string; apiKey: string } {
  return {
    mode: backend.mode,
    baseURL: backend.baseURL ?? 'https://api.anthropic.com',
    apiKey: backend.mode === 'simulated' ? 'simulated' : '[redacted]',
  };
}
