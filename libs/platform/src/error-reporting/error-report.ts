import { HttpException } from '@nestjs/common';
import { HeadspaceError, type InternalReport } from '@headspace/contracts';
import { asDatabaseUnavailable } from '@headspace/event-store';
import { redactSecrets } from '../logging/redaction';

export interface ReportSettings {
  service: string;
  release: string;
  environment: string;
}

export interface Capture {
  level: 'error' | 'fatal';
  /** False when nothing in the service's own code caught it (process handlers, the 5xx filters). */
  handled: boolean;
  /** How it surfaced: `uncaughtException`, `unhandledRejection`, `rpc`, `http`. */
  mechanism: string;
}

const MAX_MESSAGE = 8_192;
const MAX_STACK = 65_536;

/**
 * True for what the service did not mean to fail with: anything but a typed HeadspaceError, a 4xx
 * or a lost database (itself typed DATABASE.UNAVAILABLE, retried by callers). Those are answers,
 * not bugs.
 */
export function isUnexpectedError(error: unknown): boolean {
  if (error instanceof HeadspaceError) return false;
  if (error instanceof HttpException) return error.getStatus() >= 500;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return false;
  return asDatabaseUnavailable(error) === undefined;
}

/** The first `at …` line of a V8 stack: where it was thrown. */
export function topFrameOf(stack: string | undefined): string {
  return stack?.split('\n').find((line) => /^\s+at /.test(line))?.trim() ?? '';
}

/** Reports of one bug share this key: their type, message and the frame that threw. */
export const dedupeKeyOf = (report: Pick<InternalReport, 'type' | 'message' | 'stack'>) => `${report.type}\u0000${report.message}\u0000${topFrameOf(report.stack)}`;

/**
 * An error as Leon ingests it: the raw V8 stack (Leon parses it into frames with the same parser
 * as any client's), secrets redacted from message and stack.
 */
export function reportOfError(error: unknown, how: Capture, settings: ReportSettings): InternalReport {
  const e = error instanceof Error ? error : undefined;
  const stack = e?.stack ? redactSecrets(e.stack).slice(0, MAX_STACK) : undefined;
  return {
    type: typeOf(error, how.mechanism),
    message: redactSecrets(e ? e.message : describeValue(error)).slice(0, MAX_MESSAGE),
    level: how.level,
    handled: how.handled,
    ...(stack ? { stack } : {}),
    platform: 'node',
    serverName: settings.service,
    release: settings.release,
    environment: settings.environment,
    tags: { service: settings.service, mechanism: how.mechanism },
  };
}

/** A subclass's own name (`class OrderMissing extends Error` keeps `name` "Error"), else `name`. */
function typeOf(error: unknown, mechanism: string): string {
  if (!(error instanceof Error)) return mechanism === 'unhandledRejection' ? 'UnhandledRejection' : 'NonErrorThrown';
  const own = error.constructor?.name;
  const type = own && own !== 'Error' && own !== 'Object' ? own : error.name || 'Error';
  return type.slice(0, 256);
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
