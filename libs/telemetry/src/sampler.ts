import { diag } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';

/**
 * The sampler named by the standard OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG variables
 * (always_on, always_off, traceidratio and their parentbased_ forms; the ratio defaults to 1).
 * Unset: parentbased_always_on when something exports spans. With nothing exporting, spans still
 * get ids (logs, propagation) but record nothing unless a caller's sampled trace arrives: building
 * attributes and events nobody reads was ~10% of a busy service's CPU on its request and relay paths.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv, exporting: boolean): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  const ratio = () => samplerRatio(env.OTEL_TRACES_SAMPLER_ARG);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      if (name) diag.warn(`OTEL_TRACES_SAMPLER=${name} is not supported; using the default`);
      return new ParentBasedSampler({ root: exporting ? new AlwaysOnSampler() : new AlwaysOffSampler() });
  }
}

function samplerRatio(arg: string | undefined): number {
  if (arg === undefined || arg.trim() === '') return 1;
  const ratio = Number(arg);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  diag.warn(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio between 0 and 1; using 1`);
  return 1;
}
