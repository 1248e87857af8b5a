import { exceptionReportSchema } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { reportFromSentryEvent } from './sentry-event';

/** Trimmed from what @sentry/node 11 sends for `throw new TypeError(...)` inside a handler. */
const nodeEvent = {
  event_id: '9F3B6A1C-2D4E-4F50-8A6B-7C8D9E0F1A2B',
  level: 'error',
  platform: 'node',
  environment: 'production',
  release: 'shop@1.4.2',
  server_name: 'web-1',
  timestamp: 1_751_000_000.25,
  tags: { region: 'eu', retries: 3 },
  exception: {
    values: [
      {
        type: 'TypeError',
        value: "Cannot read properties of undefined (reading 'id')",
        mechanism: { type: 'onuncaughtexception', handled: false },
        stacktrace: {
          frames: [
            { filename: 'node:internal/process/task_queues', function: 'process.processTicksAndRejections', lineno: 95, colno: 5, in_app: false },
            { filename: '/srv/app/src/orders.js', abs_path: '/srv/app/src/orders.js', module: 'orders', function: 'loadOrder', lineno: 41, colno: 17, in_app: true, context_line: 'return order.id;' },
          ],
        },
      },
    ],
  },
  request: { method: 'POST', url: 'http://shop/api/orders?id=7&token=s3cret', headers: { 'user-agent': 'curl', authorization: 'Bearer abc', Cookie: 'sid=1' } },
  user: { id: 'u-1', email: 'a@b.c', ip_address: '10.0.0.1' },
  sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
};

describe('Sentry event → ExceptionReport', () => {
  it('translates an exception event: type, value, frames innermost last with in_app and abs_path, context', () => {
    const report = reportFromSentryEvent(nodeEvent, 'sentry-envelope');
    expect(exceptionReportSchema.parse(report)).toMatchObject({
      eventId: '9f3b6a1c2d4e4f508a6b7c8d9e0f1a2b',
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      level: 'error',
      handled: false,
      platform: 'node',
      environment: 'production',
      release: 'shop@1.4.2',
      serverName: 'web-1',
      timestamp: '2025-06-27T04:53:20.250Z',
      tags: { region: 'eu', retries: '3' },
      user: { id: 'u-1', email: 'a@b.c', ipAddress: '10.0.0.1' },
      source: 'sentry-envelope',
      sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
    });
    expect(report.frames?.at(-1)).toEqual({
      filename: '/srv/app/src/orders.js',
      absPath: '/srv/app/src/orders.js',
      module: 'orders',
      function: 'loadOrder',
      lineno: 41,
      colno: 17,
      inApp: true,
      contextLine: 'return order.id;',
    });
    expect(report.frames?.[0].inApp).toBe(false);
  });

  it('keeps secrets out: authorization and cookie headers and secret query values are redacted', () => {
    const report = reportFromSentryEvent(nodeEvent, 'sentry-envelope');
    expect(report.request).toEqual({
      method: 'POST',
      url: 'http://shop/api/orders?id=7&token=[redacted]',
      headers: { 'user-agent': 'curl', authorization: '[redacted]', Cookie: '[redacted]' },
    });
    expect(JSON.stringify(report)).not.toMatch(/s3cret|Bearer abc|sid=1/);
  });

  it('takes the last of chained exceptions (the one raised) and the legacy bare exception array', () => {
    const chained = { exception: { values: [{ type: 'KeyError', value: "'a'" }, { type: 'ValueError', value: 'bad' }] } };
    expect(reportFromSentryEvent(chained, 'sentry-store')).toMatchObject({ type: 'ValueError', message: 'bad' });
    expect(reportFromSentryEvent({ exception: [{ type: 'ZeroDivisionError', value: 'division by zero' }] }, 'sentry-store')).toMatchObject({
      type: 'ZeroDivisionError',
    });
  });

  it('translates a captured message (logentry or message, string or object) with a thread stack', () => {
    const message = reportFromSentryEvent(
      {
        level: 'warning',
        logentry: { message: 'disk %s full', params: ['/'], formatted: 'disk / full' },
        threads: { values: [{ crashed: false, current: true, stacktrace: { frames: [{ function: 'check', lineno: 3 }] } }] },
        fingerprint: ['disk-full', 7],
        tags: [
          ['a', '1'],
          ['bad'],
        ],
        timestamp: '2025-01-02T03:04:05.123456',
      },
      'sentry-envelope',
    );
    expect(exceptionReportSchema.parse(message)).toMatchObject({
      type: 'Message',
      message: 'disk / full',
      level: 'warning',
      frames: [{ function: 'check', lineno: 3 }],
      fingerprint: ['disk-full', '7'],
      tags: { a: '1' },
      timestamp: '2025-01-02T03:04:05.123Z',
    });
    expect(reportFromSentryEvent({ message: 'plain text' }, 'sentry-store')).toMatchObject({ type: 'Message', message: 'plain text' });
    // @sentry/node 11 sends captureMessage as a synthetic, typeless exception beside `message`.
    const synthetic = { message: 'slow: 1834 ms', exception: { values: [{ value: 'slow: 1834 ms', mechanism: { type: 'generic', synthetic: true }, stacktrace: { frames: [{ function: '?' }] } }] } };
    expect(reportFromSentryEvent(synthetic, 'sentry-envelope')).toMatchObject({ type: 'Message', message: 'slow: 1834 ms', frames: [{ function: '?' }] });
    expect(reportFromSentryEvent({ exception: { values: [{ value: 'no type' }] } }, 'sentry-envelope')).toMatchObject({ type: 'Error' });
    expect(reportFromSentryEvent({ message: { formatted: 'fmt' }, level: 'critical' }, 'sentry-store')).toMatchObject({ message: 'fmt', level: 'fatal' });
  });

  it('is lenient like Sentry: wrong-shaped fields are dropped, long ones clipped, NUL replaced, an odd id replaced', () => {
    const report = reportFromSentryEvent(
      {
        event_id: 'not-hex',
        level: 'loud',
        timestamp: 'yesterday',
        platform: { nope: 1 },
        tags: 'x',
        exception: { values: [{ type: 'E\u0000rr', value: 'x'.repeat(20_000), stacktrace: { frames: [{ lineno: -4, colno: 1.5, in_app: 'yes', function: 7 }, 'junk'] } }] },
        request: 'nope',
        user: 42,
        sdk: { name: 'n' },
      },
      'sentry-store',
    );
    const parsed = exceptionReportSchema.parse(report);
    expect(parsed.eventId).toMatch(/^[0-9a-f]{32}$/);
    expect(parsed).toMatchObject({ type: 'E\uFFFDrr', level: 'error', frames: [{ function: '7' }], tags: {} });
    expect(parsed.message).toHaveLength(8_192);
    expect([parsed.timestamp, parsed.request, parsed.sdk, parsed.platform, parsed.user]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('keeps the outermost 50 and innermost 150 of a 1,000-frame stack', () => {
    const frames = Array.from({ length: 1_000 }, (_, i) => ({ function: `f${i}`, lineno: i }));
    const report = reportFromSentryEvent({ exception: { values: [{ type: 'RangeError', stacktrace: { frames } }] } }, 'sentry-envelope');
    expect(report.frames).toHaveLength(200);
    expect(report.frames?.[49].function).toBe('f49');
    expect(report.frames?.[50].function).toBe('f850');
    expect(report.frames?.at(-1)?.function).toBe('f999');
    expect(exceptionReportSchema.safeParse(report).success).toBe(true);
  });
});
