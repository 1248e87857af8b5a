import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { seeded } from '../../testing/malformed-requests';

export interface IngestFuzzRequest {
  kind: string;
  url: string;
  headers: Record<string, string>;
  payload: Buffer;
}

type Rng = ReturnType<typeof seeded>;

const FRAME = { filename: 'app.js', abs_path: '/srv/app.js', function: 'handle', lineno: 12, colno: 3, in_app: true, context_line: 'x()' };
const EVENT = {
  event_id: 'e'.repeat(32),
  level: 'error',
  platform: 'node',
  timestamp: 1_751_000_000.5,
  environment: 'prod',
  release: 'app@1',
  tags: { a: 'b' },
  fingerprint: ['{{ default }}'],
  exception: { values: [{ type: 'TypeError', value: 'x is undefined', mechanism: { handled: false }, stacktrace: { frames: [FRAME, FRAME] } }] },
  request: { method: 'GET', url: 'http://a/b?token=1', headers: [['Cookie', 'x']] },
  user: { id: 'u', email: 'e@x', ip_address: '1.2.3.4' },
  sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
};

/** Values of every JSON kind, including ones no field should take. */
const ODD_VALUES: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'x'.repeat(20_000), '\u0000', '\ud800', [], [[]], {}, { a: { b: { c: {} } } }, [1, 'a', null], '2025-13-45T99:99:99Z'];

function validEnvelope(dsn: string): string {
  const attachment = 'a\nb\n';
  return [
    JSON.stringify({ event_id: 'e'.repeat(32), dsn, sent_at: '2025-01-01T00:00:00Z' }),
    '{"type":"session"}',
    '{"sid":"s","status":"ok"}',
    `{"type":"attachment","length":${attachment.length}}`,
    attachment,
    '{"type":"event"}',
    JSON.stringify(EVENT),
  ].join('\n');
}

function mutateBytes(r: Rng, input: Buffer): Buffer {
  let bytes = Buffer.from(input);
  for (let m = 1 + r.int(4); m > 0; m--) {
    const at = r.int(Math.max(1, bytes.length));
    switch (r.int(7)) {
      case 0: // flip a byte
        if (bytes.length) bytes[at] = r.int(256);
        break;
      case 1: // delete a range
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1 + r.int(40))]);
        break;
      case 2: // insert random bytes
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(Array.from({ length: 1 + r.int(20) }, () => r.int(256))), bytes.subarray(at)]);
        break;
      case 3: // truncate
        bytes = bytes.subarray(0, at);
        break;
      case 4: // duplicate a slice
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at, at + r.int(200)), bytes.subarray(at)]);
        break;
      case 5: // a structural character somewhere
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(r.pick(['\n', '{', '}', '"', '[', ']', ',', ':', '\\', '\r\n', '\u0000'])), bytes.subarray(at)]);
        break;
      case 6: // swap two lines
        {
          const lines = bytes.toString('latin1').split('\n');
          const [i, j] = [r.int(lines.length), r.int(lines.length)];
          [lines[i], lines[j]] = [lines[j], lines[i]];
          bytes = Buffer.from(lines.join('\n'), 'latin1');
        }
        break;
    }
  }
  return bytes;
}

/** The event with one field (at some depth) replaced by an odd value. */
function oddEvent(r: Rng): unknown {
  const event = JSON.parse(JSON.stringify(EVENT)) as Record<string, unknown>;
  const paths: Array<(v: unknown) => void> = [
    (v) => (event[r.pick(Object.keys(EVENT))] = v),
    (v) => ((event.exception as { values: Array<Record<string, unknown>> }).values[0][r.pick(['type', 'value', 'mechanism', 'stacktrace'])] = v),
    (v) => ((event.exception as { values: Array<{ stacktrace: { frames: Array<Record<string, unknown>> } }> }).values[0].stacktrace.frames[0][r.pick(Object.keys(FRAME))] = v),
    (v) => (event.exception = v),
    (v) => ((event.tags as Record<string, unknown>)[r.pick(['a', '', 'x'.repeat(100), '__proto__'])] = v),
  ];
  r.pick(paths)(r.pick(ODD_VALUES));
  return r.int(10) === 0 ? r.pick(ODD_VALUES) : event;
}

const deepJson = (r: Rng) => {
  const depth = 65 + r.int(5_000);
  return r.int(2) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `{"exception":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
};

/**
 * Seeded requests to the three ingest routes with a key that is not the project's (so nothing may
 * be recorded): mutated envelopes and JSON, odd field values, broken or mislabelled compression,
 * odd content types, keys and project ids, deep JSON, invalid UTF-8.
 */
export function ingestFuzzRequests(count: number, target: { projectId: string; project: string; wrongKey: string; dsn: string }, seed = 20): IngestFuzzRequest[] {
  const r = seeded(seed);
  const out: IngestFuzzRequest[] = [];
  const envelope = Buffer.from(validEnvelope(target.dsn));
  const sentryUrl = (route: 'envelope' | 'store', projectId = target.projectId) =>
    `/api/${encodeURIComponent(projectId)}/${route}/${r.int(3) ? `?sentry_key=${target.wrongKey}&sentry_version=7` : ''}`;
  const auth = () => (r.int(2) ? { 'x-sentry-auth': `Sentry sentry_key=${target.wrongKey}, sentry_version=7` } : {});
  const contentType = (): Record<string, string> => (r.int(3) ? {} : { 'content-type': r.pick(['application/x-sentry-envelope', 'application/json', 'text/plain', 'application/octet-stream', 'image/png', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', '*/*', ';;;']) });
  for (let i = 0; out.length < count; i++) {
    const kind = r.pick(['envelope-bytes', 'envelope-length', 'event-fields', 'store-bytes', 'plain-fields', 'plain-bytes', 'compression', 'keys-and-paths', 'deep-json', 'invalid-utf8']);
    const route = r.pick(['envelope', 'store'] as const);
    const base = { kind, url: sentryUrl('envelope'), headers: { ...auth(), ...contentType() } as Record<string, string> };
    switch (kind) {
      case 'envelope-bytes':
        out.push({ ...base, payload: mutateBytes(r, envelope) });
        break;
      case 'envelope-length': {
        const length = r.pick(['-1', '1.5', '"4"', 'null', '1e9', String(r.int(400)), '[]', '9007199254740993']);
        out.push({ ...base, payload: Buffer.from(validEnvelope(target.dsn).replace(/"length":\d+/, `"length":${length}`)) });
        break;
      }
      case 'event-fields':
        out.push({ ...base, payload: Buffer.from([`{"dsn":"${target.dsn}"}`, '{"type":"event"}', JSON.stringify(oddEvent(r))].join('\n')) });
        break;
      case 'store-bytes':
        out.push({ ...base, url: sentryUrl('store'), payload: r.int(2) ? mutateBytes(r, Buffer.from(JSON.stringify(EVENT))) : Buffer.from(JSON.stringify(oddEvent(r))) });
        break;
      case 'plain-fields':
      case 'plain-bytes': {
        const report: Record<string, unknown> = { type: 'KeyError', message: 'm', level: 'error', frames: [{ function: 'f', lineno: 1 }], tags: { a: 'b' } };
        report[r.pick([...Object.keys(report), 'stack', 'timestamp', 'eventId', 'request', 'user', 'fingerprint', 'unknown'])] = r.pick(ODD_VALUES);
        const text = Buffer.from(JSON.stringify(report));
        out.push({ kind, url: `/api/v1/ops/projects/${target.project}/exceptions`, headers: { 'x-headspace-ingest-key': target.wrongKey, ...contentType() }, payload: kind === 'plain-bytes' ? mutateBytes(r, text) : text });
        break;
      }
      case 'compression': {
        const plainBytes = r.int(2) ? envelope : mutateBytes(r, envelope);
        const [label, packed] = r.pick([
          ['gzip', gzipSync(plainBytes)],
          ['deflate', deflateSync(plainBytes)],
          ['br', brotliCompressSync(plainBytes)],
          ['gzip', deflateSync(plainBytes)],
          ['gzip, gzip', gzipSync(plainBytes)],
          ['identity', plainBytes],
          [r.pick(['compress', 'zstd', 'x', '', 'gzip;q=1']), gzipSync(plainBytes)],
        ] as Array<[string, Buffer]>);
        const payload = r.int(2) ? mutateBytes(r, packed) : packed;
        out.push({ ...base, url: sentryUrl(route), headers: { ...base.headers, 'content-encoding': label }, payload });
        break;
      }
      case 'keys-and-paths': {
        const projectId = r.pick([target.projectId, '0', '-1', 'abc', '9'.repeat(30), '99999', `${target.projectId}x`, '%00', 'x'.repeat(300)]);
        const key = r.pick(['', ' ', 'a b', 'x'.repeat(200), '"', '\t', target.wrongKey, 'sentry_key=', 'é']);
        const headers = r.pick([
          { 'x-sentry-auth': `Sentry sentry_key=${key}` },
          { 'x-sentry-auth': r.pick(['Sentry', 'Sentry ,,,', 'sentry_version=7', `Bearer ${key}`]) },
          { authorization: `Sentry sentry_key=${key}` },
          {},
        ]);
        out.push({ kind, url: `/api/${encodeURIComponent(projectId)}/${route}/`, headers: headers as Record<string, string>, payload: route === 'store' ? Buffer.from(JSON.stringify(EVENT)) : envelope });
        break;
      }
      case 'deep-json':
        out.push({ ...base, url: sentryUrl('store'), payload: Buffer.from(deepJson(r)) });
        break;
      case 'invalid-utf8': {
        const bytes = Buffer.from(validEnvelope(target.dsn));
        const at = r.int(bytes.length);
        out.push({ ...base, url: sentryUrl(route), payload: Buffer.concat([bytes.subarray(0, at), Buffer.from([r.pick([0xff, 0xc0, 0xed, 0x80])]), bytes.subarray(at)]) });
        break;
      }
    }
  }
  return out;
}
