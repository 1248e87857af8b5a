import { describe, expect, it } from 'vitest';
import { generationMs, parseSimulatedLatency } from './latency';

describe('simulated model latency', () => {
  it('is off when unset, empty or "instant"', () => {
    expect(parseSimulatedLatency(undefined)).toBeUndefined();
    expect(parseSimulatedLatency('')).toBeUndefined();
    expect(parseSimulatedLatency(' instant ')).toBeUndefined();
  });

  it('reads "<first-token ms>,<output tokens/s>"', () => {
    expect(parseSimulatedLatency('600,80')).toEqual({ firstTokenMs: 600, outputTokensPerSecond: 80 });
    expect(parseSimulatedLatency('0, 12.5')).toEqual({ firstTokenMs: 0, outputTokensPerSecond: 12.5 });
  });

  it.each(['fast', '600', '600,0', '-1,80', '600;80'])('refuses %j naming HS_SIMULATOR_LATENCY', (value) => {
    expect(() => parseSimulatedLatency(value)).toThrow(expect.objectContaining({ code: 'CONFIG.INVALID', field: 'HS_SIMULATOR_LATENCY' }));
  });

  it('generates the tokens after the first at the output rate', () => {
    expect(generationMs({ firstTokenMs: 600, outputTokensPerSecond: 80 }, 81)).toBe(1_000);
    expect(generationMs({ firstTokenMs: 600, outputTokensPerSecond: 80 }, 1)).toBe(0);
  });
});
