import { randomBytes } from 'node:crypto';
import { isSecretName } from '@headspace/contracts';

/**
 * Shared clean-up for reports from any client: strings clipped to the contract's bounds (a client's
 * long message is kept, shortened, not refused), NUL removed (PostgreSQL text cannot hold it), and
 * secrets kept out of the log (request headers and query values named like secrets).
 */

/** A string clipped to `max` characters, or undefined for anything else (numbers are stringified). */
export function clip(value: unknown, max: number): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
  if (typeof value !== 'string') return undefined;
  const text = value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** `event_id` as Sentry allows it (32 hex, or a UUID with dashes, any case), else a fresh one. */
export function eventIdOf(value: unknown): string {
  if (typeof value === 'string') {
    const hex = value.replace(/-/g, '').toLowerCase();
    if (/^[0-9a-f]{32}$/.test(hex)) return hex;
  }
  return randomBytes(16).toString('hex');
}

/** A non-negative integer within the contract's bound, else undefined. */
export function lineNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 10_000_000 ? value : undefined;
}

/** Client timestamps: ISO text (a zone-less one is UTC, as Sentry reads it) or Unix seconds (float). */
export function isoTimestamp(value: unknown): string | undefined {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) ms = value * 1_000;
  else if (typeof value === 'string' && value.length <= 64) {
    if (/^\d+(\.\d+)?$/.test(value)) ms = Number(value) * 1_000;
    else {
      const zoned = /(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
      ms = Date.parse(zoned);
    }
  }
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  // Year 0-9999 only: toISOString of others is not the contract's datetime form.
  return date.getUTCFullYear() >= 1970 && date.getUTCFullYear() <= 9999 ? date.toISOString() : undefined;
}

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-sentry-auth|x-headspace-ingest-key|x-api-key|x-auth-token|x-csrf-token|x-xsrf-token)$/i;
const REDACTED = '[redacted]';

const secretHeader = (name: string) => SECRET_HEADER.test(name) || isSecretName(name.replace(/-/g, '_'));

/** Request headers (an object, or Sentry's array of pairs), bounded, with secret ones redacted. */
export function safeHeaders(value: unknown): Record<string, string> | undefined {
  const pairs: Array<[unknown, unknown]> = Array.isArray(value)
    ? value.filter((p): p is [unknown, unknown] => Array.isArray(p) && p.length === 2)
    : isObject(value)
      ? Object.entries(value)
      : [];
  const headers: Record<string, string> = {};
  let count = 0;
  for (const [rawName, rawValue] of pairs) {
    const name = clip(rawName, 128);
    const text = clip(rawValue, 1_024);
    if (!name || name === '__proto__' || text === undefined || count >= 50) continue;
    headers[name] = secretHeader(name) ? REDACTED : text;
    count++;
  }
  return count ? headers : undefined;
}

/** A URL with the values of secret-named query parameters (token, api_key, …) redacted. */
export function safeUrl(value: unknown): string | undefined {
  const url = clip(value, 2_048);
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const name = decodeSafely(pair.split('=', 1)[0]);
      return pair.includes('=') && (isSecretName(name) || /^(key|sentry_key|access_token|sig|signature|code)$/i.test(name))
        ? `${pair.split('=', 1)[0]}=${REDACTED}`
        : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Tags as an object or Sentry's array of [key, value] pairs; at most 50, keys 64 and values 256 characters. */
export function tagsOf(value: unknown): Record<string, string> {
  const pairs: Array<[unknown, unknown]> = Array.isArray(value)
    ? value.filter((p): p is [unknown, unknown] => Array.isArray(p) && p.length === 2)
    : isObject(value)
      ? Object.entries(value)
      : [];
  const tags: Record<string, string> = {};
  for (const [rawKey, rawValue] of pairs) {
    if (Object.keys(tags).length >= 50) break;
    const key = clip(rawKey, 64);
    const text = clip(rawValue, 256);
    if (key && key !== '__proto__' && text !== undefined) tags[key] = text;
  }
  return tags;
}
