import { Logger } from '@nestjs/common';
import { meter } from '@headspace/telemetry';

/** A setting of an existing stream or consumer that differs from the configuration and is kept: changing it would lower what an operator raised, or cannot be done in place. */
export interface StreamDrift {
  stream: string;
  field: 'num_replicas' | 'max_age' | 'max_bytes' | 'storage' | 'placement';
  wanted: number | string;
  actual: number | string;
}

const driftCounter = meter.createCounter('headspace.jetstream.provisioning.drift', {
  description: 'Stream settings kept as found because they differ from the configuration (counted once per stream and field per start)',
});
const logger = new Logger('JetStreamProvisioning');
const seen = new Map<string, StreamDrift>();

/** Logs and counts each stream field's drift once per process start, and keeps it for the health details. */
export function recordDrift(drift: StreamDrift[]): void {
  for (const d of drift) {
    const key = `${d.stream}\u0000${d.field}`;
    const known = seen.get(key);
    seen.set(key, d);
    if (known && known.wanted === d.wanted && known.actual === d.actual) continue;
    if (!known) driftCounter.add(1, { stream: d.stream, field: d.field });
    logger.warn(`Stream ${d.stream} keeps ${d.field}=${d.actual} (configured ${d.wanted}): provisioning reports drift rather than overwrite an operator's setting`);
  }
}

/** The drift found since this process started, for the service's health details. */
export function provisioningDrift(): StreamDrift[] {
  return [...seen.values()];
}
