import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { InternalReport, ReportExceptionRequest, ReportOrigin, ServiceName } from '@headspace/contracts';
import { meter } from '@headspace/telemetry';
import { redactSecrets } from '../logging/redaction';
import { dedupeKeyOf, reportOfError, type Capture, type ReportSettings } from './error-report';

/** Hands one report to Leon: a `report-exception` request over NATS, or ops-leon's own ingest in-process. */
export type ReportSink = (request: ReportExceptionRequest) => Promise<unknown>;

export interface ErrorReporterOptions extends ReportSettings {
  enabled: boolean;
  sink?: ReportSink;
  /** Reports waiting to be sent; more are dropped (counted). */
  queueLimit?: number;
  /** One report per (type, message, top frame) per window; the repeats are counted onto the next one. */
  windowMs?: number;
  now?: () => number;
}

export type ReportOutcome = 'sent' | 'deduplicated' | 'dropped' | 'failed';

const MAX_KEYS = 1_000;
const reports = meter.createCounter('headspace.error_reports', { description: "A service's own errors and hook failures reported to Leon, by outcome" });

/**
 * Best-effort reporting of a service's own errors to Leon. Nothing here throws into the caller or
 * waits on it: a report is queued (bounded) and sent by one background drain; repeats of one bug
 * within a window are only counted, and the next report of it carries the count (tag
 * `suppressed_repeats`), so a storm of one error costs one request per minute.
 */
export class ErrorReporter {
  readonly counts: Record<ReportOutcome, number> = { sent: 0, deduplicated: 0, dropped: 0, failed: 0 };
  private readonly logger = new Logger('ErrorReporter');
  private readonly queue: ReportExceptionRequest[] = [];
  private readonly seen = new Map<string, { since: number; repeats: number }>();
  private sink?: ReportSink;
  private draining?: Promise<void>;
  private lastWarnAt = -Infinity;

  constructor(private readonly options: ErrorReporterOptions) {
    this.sink = options.sink;
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Where reports go from now on (ops-leon: its own ingest, so its errors never loop through NATS). */
  useSink(sink: ReportSink): void {
    this.sink = sink;
  }

  /** Reports a thrown value of this service (kind `unhandled`). */
  capture(error: unknown, how: Capture): void {
    if (!this.options.enabled) return;
    try {
      this.enqueue(reportOfError(error, how, this.options), { service: this.service, kind: 'unhandled' });
    } catch {
      // Best effort: reporting must never become the caller's failure.
    }
  }

  /** Reports something that is not this service's exception (an agent hook that failed), with its origin. */
  send(report: InternalReport, origin: Omit<ReportOrigin, 'service'>): void {
    if (!this.options.enabled) return;
    try {
      const tags = Object.fromEntries(Object.entries(report.tags ?? {}).map(([k, v]) => [k, redactSecrets(v)]));
      this.enqueue({ serverName: this.options.service, environment: this.options.environment, ...report, message: redactSecrets(report.message), ...(report.stack ? { stack: redactSecrets(report.stack) } : {}), tags }, { ...origin, service: this.service });
    } catch {
      // Best effort, as above.
    }
  }

  /** What is still queued gets a moment to leave before the NATS connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush(1_000);
  }

  /** Waits for the queue to empty, at most `deadlineMs`; true when it did. */
  async flush(deadlineMs: number): Promise<boolean> {
    if (!this.draining) return this.queue.length === 0;
    const drained = this.draining.then(() => true);
    return Promise.race([drained, sleep(deadlineMs, false, { ref: false })]);
  }

  private get service(): ServiceName {
    return this.options.service as ServiceName;
  }

  private enqueue(report: InternalReport, origin: ReportOrigin): void {
    const repeats = this.admit(dedupeKeyOf(report));
    if (repeats === undefined) return this.count('deduplicated');
    if (this.queue.length >= (this.options.queueLimit ?? 100)) return this.count('dropped');
    const tags = { ...report.tags, ...(repeats > 0 ? { suppressed_repeats: String(repeats) } : {}) };
    this.queue.push({ eventId: randomBytes(16).toString('hex'), origin, report: { ...report, tags } });
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /** undefined: a repeat inside the window (counted); else how many repeats the previous window held back. */
  private admit(key: string): number | undefined {
    const now = (this.options.now ?? Date.now)();
    const seen = this.seen.get(key);
    if (seen && now - seen.since < (this.options.windowMs ?? 60_000)) {
      seen.repeats += 1;
      return undefined;
    }
    this.seen.delete(key);
    this.seen.set(key, { since: now, repeats: 0 });
    if (this.seen.size > MAX_KEYS) this.seen.delete(this.seen.keys().next().value as string);
    return seen?.repeats ?? 0;
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      try {
        if (!this.sink) throw new Error('no sink to report to');
        await this.sink(next);
        this.count('sent');
      } catch (error) {
        this.count('failed');
        this.warnAtMostPerMinute(`could not report ${next.report.type} to Leon: ${(error as Error).message}`);
      }
    }
  }

  private count(outcome: ReportOutcome): void {
    this.counts[outcome] += 1;
    reports.add(1, { service: this.options.service, outcome });
  }

  private warnAtMostPerMinute(message: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = now;
    this.logger.warn(message);
  }
}
