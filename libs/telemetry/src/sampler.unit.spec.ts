import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { samplerFromEnv } from './sampler';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const sampledParent: Context = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true });
const unsampledParent: Context = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE, isRemote: true });

function decide(env: NodeJS.ProcessEnv, exporting: boolean, parent: Context, traceId = TRACE_ID): boolean {
  const result = samplerFromEnv(env, exporting).shouldSample(parent, traceId, 'span', SpanKind.INTERNAL, {}, []);
  return result.decision === SamplingDecision.RECORD_AND_SAMPLED;
}

/** Root decisions over many random trace ids: the share sampled. */
function rootShare(env: NodeJS.ProcessEnv): number {
  let sampled = 0;
  for (let i = 0; i < 2_000; i++) {
    const traceId = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
    if (decide(env, true, ROOT_CONTEXT, traceId)) sampled++;
  }
  return sampled / 2_000;
}

describe('sampler from OTEL_TRACES_SAMPLER', () => {
  it('by default samples every root trace when something exports, none when nothing does, and follows a parent either way', () => {
    expect(decide({}, true, ROOT_CONTEXT)).toBe(true);
    expect(decide({}, false, ROOT_CONTEXT)).toBe(false);
    expect(decide({}, false, sampledParent)).toBe(true);
    expect(decide({}, true, unsampledParent)).toBe(false);
  });

  it('parentbased_traceidratio samples about the given share of root traces and keeps a sampled caller whole', () => {
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' };
    expect(rootShare(env)).toBeGreaterThan(0.15);
    expect(rootShare(env)).toBeLessThan(0.35);
    expect(decide({ ...env, OTEL_TRACES_SAMPLER_ARG: '0' }, true, sampledParent)).toBe(true);
    expect(decide({ ...env, OTEL_TRACES_SAMPLER_ARG: '0' }, true, ROOT_CONTEXT)).toBe(false);
  });

  it('honours always_off, always_on and traceidratio regardless of the parent, and falls back to a ratio of 1 on a bad argument', () => {
    expect(decide({ OTEL_TRACES_SAMPLER: 'always_off' }, true, sampledParent)).toBe(false);
    expect(decide({ OTEL_TRACES_SAMPLER: 'always_on' }, false, unsampledParent)).toBe(true);
    expect(rootShare({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'lots' })).toBe(1);
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, true, ROOT_CONTEXT)).toBe(false);
  });
});
