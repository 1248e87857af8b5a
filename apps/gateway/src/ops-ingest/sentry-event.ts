import type { ExceptionLevel, ExceptionReportInput, StackFrame } from '@headspace/contracts';
import { clip, eventIdOf, isObject, isoTimestamp, lineNumber, safeHeaders, safeUrl, tagsOf } from './report-fields';

/**
 * A Sentry event (https://develop.sentry.dev/sdk/data-model/event-payloads/) as Leon's
 * ExceptionReport. Lenient like Sentry's own ingest: fields of the wrong shape are left out, long
 * ones clipped; only a payload that is not an object at all is refused (by the caller).
 */
export function reportFromSentryEvent(event: Record<string, unknown>, source: 'sentry-envelope' | 'sentry-store'): ExceptionReportInput {
  const primary = primaryException(event.exception);
  const message = messageOf(event);
  const mechanism = isObject(primary?.mechanism) ? primary.mechanism : undefined;
  const frames = framesOf(primary?.stacktrace) ?? framesOf(event.stacktrace) ?? framesOf(crashedThread(event.threads)?.stacktrace) ?? [];
  const sdk = isObject(event.sdk) ? { name: clip(event.sdk.name, 128), version: clip(event.sdk.version, 64) } : undefined;
  const fingerprint = Array.isArray(event.fingerprint)
    ? event.fingerprint.slice(0, 20).map((f) => clip(f, 256)).filter((f): f is string => f !== undefined)
    : [];
  const request = isObject(event.request) ? event.request : undefined;
  const user = isObject(event.user) ? event.user : undefined;
  return {
    eventId: eventIdOf(event.event_id),
    // A captured message with attachStacktrace comes as a synthetic exception without a type.
    type: clip(primary?.type, 256) || (primary && message === undefined && mechanism?.synthetic !== true ? 'Error' : 'Message'),
    // An exception's own value; a captured message's text; both empty is an empty message.
    message: clip(primary ? (primary.value ?? message) : message, 8_192) ?? '',
    level: levelOf(event.level),
    ...(typeof mechanism?.handled === 'boolean' ? { handled: mechanism.handled } : {}),
    frames,
    platform: clip(event.platform, 64),
    environment: clip(event.environment, 64),
    release: clip(event.release, 200),
    serverName: clip(event.server_name, 256),
    timestamp: isoTimestamp(event.timestamp),
    tags: tagsOf(event.tags),
    ...(fingerprint.length ? { fingerprint } : {}),
    ...(request ? { request: { method: clip(request.method, 16), url: safeUrl(request.url), headers: safeHeaders(request.headers) } } : {}),
    ...(user ? { user: { id: clip(user.id, 256), email: clip(user.email, 320), ipAddress: clip(user.ip_address, 64) } } : {}),
    source,
    ...(sdk?.name && sdk.version ? { sdk: { name: sdk.name, version: sdk.version } } : {}),
  };
}

/** `exception.values` (or the legacy bare array): the last one is the exception that was raised. */
function primaryException(exception: unknown): Record<string, unknown> | undefined {
  const values = Array.isArray(exception) ? exception : isObject(exception) && Array.isArray(exception.values) ? exception.values : [];
  const objects = values.filter(isObject);
  return objects[objects.length - 1];
}

/** `logentry` / `message`: a string, or `{ formatted, message, params }`. */
function messageOf(event: Record<string, unknown>): string | undefined {
  for (const field of [event.logentry, event.message]) {
    if (typeof field === 'string') return field;
    if (isObject(field)) {
      const text = typeof field.formatted === 'string' ? field.formatted : typeof field.message === 'string' ? field.message : undefined;
      if (text !== undefined) return text;
    }
  }
  return undefined;
}

function crashedThread(threads: unknown): Record<string, unknown> | undefined {
  const values = isObject(threads) && Array.isArray(threads.values) ? threads.values.filter(isObject) : [];
  return values.find((t) => t.crashed === true && isObject(t.stacktrace)) ?? values.find((t) => t.current === true && isObject(t.stacktrace));
}

const MAX_FRAMES = 200;

/**
 * Sentry frames are innermost last, as Leon keeps them. Past 200, the outermost 50 and innermost
 * 150 are kept (the middle of a deep recursion tells least).
 */
function framesOf(stacktrace: unknown): StackFrame[] | undefined {
  if (!isObject(stacktrace) || !Array.isArray(stacktrace.frames)) return undefined;
  let frames = stacktrace.frames.filter(isObject);
  if (frames.length > MAX_FRAMES) frames = [...frames.slice(0, 50), ...frames.slice(-150)];
  return frames.map(frameOf);
}

function frameOf(frame: Record<string, unknown>): StackFrame {
  const out: StackFrame = {
    module: clip(frame.module, 512),
    function: clip(frame.function, 512),
    filename: clip(frame.filename, 1_024),
    absPath: clip(frame.abs_path, 2_048),
    lineno: lineNumber(frame.lineno),
    colno: lineNumber(frame.colno),
    inApp: typeof frame.in_app === 'boolean' ? frame.in_app : undefined,
    contextLine: clip(frame.context_line, 1_024),
  };
  for (const key of Object.keys(out) as Array<keyof StackFrame>) if (out[key] === undefined) delete out[key];
  return out;
}

const LEVELS: Record<string, ExceptionLevel> = {
  fatal: 'fatal',
  critical: 'fatal',
  error: 'error',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  log: 'info',
  debug: 'debug',
};

const levelOf = (value: unknown): ExceptionLevel => (typeof value === 'string' ? LEVELS[value.toLowerCase()] : undefined) ?? 'error';
