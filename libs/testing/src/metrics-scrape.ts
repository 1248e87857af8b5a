import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRequestHandler } from '@headspace/telemetry';

/** The Prometheus text this process exports now (telemetry must be started), as a real scrape gets it. */
export async function scrapeMetrics(): Promise<string> {
  const server = createServer(metricsRequestHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    return await res.text();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export interface MetricSample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of one series name (e.g. `headspace_processor_lag`, `gen_ai_client_token_usage_bucket`) in Prometheus text. */
export function metricSamples(text: string, name: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value.replace(/\\(.)/g, '$1');
    samples.push({ labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when none does (throws when several do). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = metricSamples(text, name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
