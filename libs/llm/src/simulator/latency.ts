import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/**
 * How long the simulator takes to answer, like a model would: a time to the first token, then the
 * output at a steady rate. Off (instant) by default — the simulator is for correctness — and set
 * for measurements where the model's own time matters (the example run's orchestration share).
 */
export interface SimulatedLatency {
  firstTokenMs: number;
  outputTokensPerSecond: number;
}

/** `HS_SIMULATOR_LATENCY`: unset, empty or `instant` → none; `<first-token ms>,<output tokens/s>`, e.g. `600,80`. */
export function parseSimulatedLatency(value: string | undefined): SimulatedLatency | undefined {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'instant') return undefined;
  const match = /^(\d{1,6})\s*,\s*(\d{1,6}(?:\.\d+)?)$/.exec(text);
  const [firstTokenMs, outputTokensPerSecond] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!match || outputTokensPerSecond <= 0) {
    throw new HeadspaceError(ErrorCodes.configInvalid, `HS_SIMULATOR_LATENCY must be "instant" or "<first-token ms>,<output tokens/s>" (e.g. "600,80"), not "${text}"`, {
      field: 'HS_SIMULATOR_LATENCY',
    });
  }
  return { firstTokenMs, outputTokensPerSecond };
}

/** The time to generate `outputTokens` after the first one. */
export function generationMs(latency: SimulatedLatency, outputTokens: number): number {
  return (Math.max(0, outputTokens - 1) / latency.outputTokensPerSecond) * 1000;
}
