import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createLlmClient, startSimulator } from '@headspace/llm';
import { SpanKind, shutdownTelemetry, startTelemetry, withSpan } from '@headspace/telemetry';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { percentile, type BenchRow } from './bench-kit';
import { OtlpReceiver } from '../libs/testing/src/otlp-receiver';

// The repository's README: the bench runs from the repo root both compiled (dist/bench) and from source.
const README = resolve(process.env.HS_ROOT ?? process.cwd(), 'README.md');

/**
 * Agent-turn overhead of tracing: the same simulated turns (one `chat` model call through the LLM
 * client on the instant simulator, its undici HTTP span, and one `execute_tool` span around a file
 * read, all inside a turn span) with tracing off as a service runs without an exporter (spans
 * carry ids, nothing records) and with every span recorded and exported in OTLP/HTTP batches to a
 * receiver in this process. Rounds alternate (ABBA) so both modes see the same machine. Target: p99 with
 * tracing ≤ 1.10 × without (issue 26).
 */
export async function benchTracing(options: { quick: boolean }): Promise<BenchRow[]> {
  const simulator = await startSimulator({ port: 0, announce: false, latency: undefined });
  const receiver = new OtlpReceiver();
  await receiver.start();
  const client = createLlmClient({ baseURL: simulator.url, apiKey: 'bench', timeoutMs: 10_000, maxRetries: 0, sdkTraces: false });
  // As the preload registers it in a service: the model call's HTTP request is a span too.
  const unregister = registerInstrumentations({ instrumentations: [new UndiciInstrumentation()] });
  const turn = () =>
    withSpan('turn', { attributes: { 'headspace.persona': 'bench' } }, async () => {
      await client.create({ model: 'sonnet', maxTokens: 1_000, messages: [{ role: 'user', content: 'Read the README.' }] });
      await withSpan('execute_tool Read', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'Read' } }, () =>
        readFile(README, 'utf8'),
      );
    });
  const modes = {
    off: { env: {}, times: [] as number[], cpuUs: 0 },
    on: { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_LOGS_EXPORTER: 'none' }, times: [] as number[], cpuUs: 0 },
  };
  const run = async (mode: keyof typeof modes, turns: number, record: boolean) => {
    // The OTLP exporter reads its endpoint from process.env.
    const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (mode === 'on') process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    else delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    const cpu = process.cpuUsage();
    try {
      const { exporters } = startTelemetry({ serviceName: 'bench-tracing', env: modes[mode].env });
      if ((exporters.length > 0) !== (mode === 'on')) throw new Error(`tracing ${mode} started with exporters [${exporters}]`);
      for (let i = 0; i < turns; i++) {
        const t0 = performance.now();
        await turn();
        if (record) modes[mode].times.push(performance.now() - t0);
      }
    } finally {
      await shutdownTelemetry(); // flushes the batch: its export is part of the traced mode's cost
      const used = process.cpuUsage(cpu);
      if (record) modes[mode].cpuUs += used.user + used.system;
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    }
  };
  try {
    await run('off', 50, false); // warm-up: JIT, the simulator, the exporter's module
    await run('on', 50, false);
    const rounds = options.quick ? 6 : 200;
    // ABBA order: a round's garbage is partly collected in the next one, so each mode follows each equally often.
    for (let r = 0; r < rounds; r++) {
      for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        await run(mode, 50, true);
      }
    }
    const spans = receiver.spans().length;
    const stats = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };
    const off = stats(modes.off.times);
    const on = stats(modes.on.times);
    const ratio = on.p99 / off.p99;
    // This process's CPU per turn (simulator and receiver included): steadier than tail latency on a shared machine.
    const cpuPerTurn = (mode: keyof typeof modes) => modes[mode].cpuUs / 1000 / modes[mode].times.length;
    return [
      { name: `agent turn with tracing off p50 (${modes.off.times.length} turns: chat on the instant simulator + a Read)`, value: off.p50, unit: 'ms', note: `p99 ${off.p99.toFixed(2)} ms; CPU ${cpuPerTurn('off').toFixed(2)} ms/turn` },
      {
        name: `agent turn with tracing exported at 100% p50 (${modes.on.times.length} turns, ${spans} spans received over OTLP/HTTP)`,
        value: on.p50,
        unit: 'ms',
        note: `p99 ${on.p99.toFixed(2)} ms; CPU ${cpuPerTurn('on').toFixed(2)} ms/turn; p99 ratio ${ratio.toFixed(2)}× (target ≤ 1.10×)${ratio <= 1.1 ? '' : ' ABOVE TARGET'}`,
      },
    ];
  } finally {
    unregister();
    await simulator.close();
    await receiver.stop();
  }
}
