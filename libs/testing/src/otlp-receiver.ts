import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

export interface ReceivedLog {
  service: string;
  traceId?: string;
  spanId?: string;
  body: unknown;
  severityText?: string;
  attributes: Record<string, unknown>;
}

/**
 * A collector's OTLP/HTTP JSON endpoint in the test process: accepts POST /v1/traces and /v1/logs
 * (the JSON the OTLP/HTTP exporters send) and keeps the bodies; spans() and logs() decode them.
 */
export class OtlpReceiver {
  private server?: Server;
  private readonly bodies = { traces: [] as string[], logs: [] as string[] };
  requests = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.requests++;
        const kind = req.url === '/v1/traces' ? 'traces' : req.url === '/v1/logs' ? 'logs' : undefined;
        if (req.method !== 'POST' || !kind) {
          res.writeHead(404).end();
          return;
        }
        this.bodies[kind].push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  spans(): ReceivedSpan[] {
    return this.bodies.traces.flatMap((body) =>
      (JSON.parse(body).resourceSpans ?? []).flatMap((rs: { resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; name: string; attributes?: KeyValue[] }> }> }) =>
        (rs.scopeSpans ?? []).flatMap((ss) =>
          (ss.spans ?? []).map((span) => ({
            service: String(attributesOf(rs.resource?.attributes)['service.name']),
            traceId: span.traceId,
            spanId: span.spanId,
            name: span.name,
            attributes: attributesOf(span.attributes),
          })),
        ),
      ),
    );
  }

  logs(): ReceivedLog[] {
    return this.bodies.logs.flatMap((body) =>
      (JSON.parse(body).resourceLogs ?? []).flatMap((rl: { resource?: { attributes?: KeyValue[] }; scopeLogs?: Array<{ logRecords?: Array<{ traceId?: string; spanId?: string; body?: AnyValue; severityText?: string; attributes?: KeyValue[] }> }> }) =>
        (rl.scopeLogs ?? []).flatMap((sl) =>
          (sl.logRecords ?? []).map((record) => ({
            service: String(attributesOf(rl.resource?.attributes)['service.name']),
            traceId: record.traceId || undefined,
            spanId: record.spanId || undefined,
            body: record.body ? valueOf(record.body) : undefined,
            severityText: record.severityText,
            attributes: attributesOf(record.attributes),
          })),
        ),
      ),
    );
  }

  /** Raw JSON bodies received so far, for assertions over everything sent. */
  raw(): string {
    return [...this.bodies.traces, ...this.bodies.logs].join('\n');
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function valueOf(value: AnyValue): unknown {
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? value;
}

function attributesOf(list: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}
