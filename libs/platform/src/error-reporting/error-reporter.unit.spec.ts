import type { ReportExceptionRequest } from '@headspace/contracts';
import { ErrorReporter, type ErrorReporterOptions } from './error-reporter';

import { describe, expect, it } from 'vitest';

const settings = { service: 'cost-governor', release: '0.1.0', environment: 'staging' };

function reporterWith(options: Partial<ErrorReporterOptions> = {}) {
  const sent: ReportExceptionRequest[] = [];
  let now = Date.parse('2025-03-01T10:00:00Z');
  const reporter = new ErrorReporter({ ...settings, enabled: true, sink: async (r) => void sent.push(r), now: () => now, ...options });
  return { reporter, sent, advance: (ms: number) => (now += ms) };
}

/** Thrown from one place, so every call has the same top frame. */
const failAt = (message: string) => {
  try {
    throw new TypeError(message);
  } catch (error) {
    return error;
  }
};
const rpc = { level: 'error', handled: false, mechanism: 'rpc' } as const;

describe('ErrorReporter', () => {
  it("reports an error as Leon ingests it: its type, message and raw stack, the service as server name, the release and environment, kind 'unhandled'", async () => {
    const { reporter, sent } = reporterWith();
    class LedgerMismatch extends Error {}
    reporter.capture(new LedgerMismatch('spent 3 of 2'), { level: 'fatal', handled: false, mechanism: 'uncaughtException' });
    await reporter.flush(1_000);
    expect(sent).toHaveLength(1);
    expect(sent[0].eventId).toMatch(/^[0-9a-f]{32}$/);
    expect(sent[0].origin).toEqual({ service: 'cost-governor', kind: 'unhandled' });
    expect(sent[0].report).toMatchObject({ type: 'LedgerMismatch', message: 'spent 3 of 2', level: 'fatal', handled: false, serverName: 'cost-governor', release: '0.1.0', environment: 'staging', tags: { service: 'cost-governor', mechanism: 'uncaughtException' } });
    expect(sent[0].report.stack).toMatch(/^Error: spent 3 of 2\n\s+at /);
  });

  it('sends the same error 50 times in a minute once, counts the 49 repeats, and puts the count on the first report of the next minute', async () => {
    const { reporter, sent, advance } = reporterWith();
    for (let i = 0; i < 50; i++) reporter.capture(failAt('budget row missing'), rpc);
    await reporter.flush(1_000);
    expect(sent).toHaveLength(1);
    expect(reporter.counts).toMatchObject({ sent: 1, deduplicated: 49 });

    advance(60_000);
    reporter.capture(failAt('budget row missing'), rpc);
    await reporter.flush(1_000);
    expect(sent).toHaveLength(2);
    expect(sent[1].report.tags).toMatchObject({ suppressed_repeats: '49' });
  });

  it('reports errors that differ in message or in the frame that threw separately', async () => {
    const { reporter, sent } = reporterWith();
    reporter.capture(failAt('budget row missing'), rpc);
    reporter.capture(failAt('price row missing'), rpc);
    reporter.capture(new TypeError('budget row missing'), rpc);
    await reporter.flush(1_000);
    expect(sent).toHaveLength(3);
  });

  it('sends nothing when disabled (HS_REPORT_ERRORS=off)', async () => {
    const { reporter, sent } = reporterWith({ enabled: false });
    reporter.capture(failAt('budget row missing'), rpc);
    reporter.send({ type: 'HookError', message: 'hook failed' }, { kind: 'hook', hook: { event: 'Stop', type: 'command', command: 'false' } });
    await reporter.flush(1_000);
    expect(sent).toEqual([]);
    expect(reporter.counts).toEqual({ sent: 0, deduplicated: 0, dropped: 0, failed: 0 });
  });

  it('never throws into the caller: a failing sink is counted, and reporting goes on', async () => {
    let calls = 0;
    const { reporter } = reporterWith({
      sink: async () => {
        calls += 1;
        if (calls === 1) throw new Error('no responders');
      },
    });
    expect(() => reporter.capture(failAt('one'), rpc)).not.toThrow();
    reporter.capture(failAt('two'), rpc);
    expect(await reporter.flush(1_000)).toBe(true);
    expect(reporter.counts).toMatchObject({ sent: 1, failed: 1 });
  });

  it('keeps at most queueLimit reports waiting and drops (counts) the rest', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { reporter, sent } = reporterWith({ queueLimit: 3, sink: async (r) => void (await gate, sent.push(r)) });
    for (let i = 0; i < 10; i++) reporter.capture(failAt(`distinct ${'x'.repeat(i)}`), rpc);
    release();
    await reporter.flush(1_000);
    // The first is taken by the drain at once; three wait; six are dropped.
    expect(sent).toHaveLength(4);
    expect(reporter.counts.dropped).toBe(6);
  });

  it('redacts secrets from the message, the stack and a hook report’s tags', async () => {
    const { reporter, sent } = reporterWith();
    const key = 'sk-ant-api03-FAKEfake0123456789abcdefGHIJKL';
    reporter.capture(new Error(`anthropic refused ${key}`), rpc);
    reporter.send({ type: 'HookError', message: `curl -H "x-api-key: ${key}" failed`, tags: { command: `deploy --token ${key}` } }, { kind: 'hook', hook: { event: 'Stop', type: 'command', command: 'deploy' } });
    await reporter.flush(1_000);
    expect(JSON.stringify(sent)).not.toContain(key);
    expect(sent[0].report.message).toBe('anthropic refused [redacted:anthropic-key]');
    expect(sent[1].origin).toMatchObject({ service: 'cost-governor', kind: 'hook' });
    expect(sent[1].report).toMatchObject({ serverName: 'cost-governor', environment: 'staging' });
  });

  it('names a thrown non-Error by how it surfaced', async () => {
    const { reporter, sent } = reporterWith();
    reporter.capture('connection reset', { level: 'error', handled: false, mechanism: 'unhandledRejection' });
    reporter.capture({ code: 42 }, { level: 'fatal', handled: false, mechanism: 'uncaughtException' });
    await reporter.flush(1_000);
    expect(sent.map((s) => [s.report.type, s.report.message])).toEqual([
      ['UnhandledRejection', 'connection reset'],
      ['NonErrorThrown', '{"code":42}'],
    ]);
  });
});
