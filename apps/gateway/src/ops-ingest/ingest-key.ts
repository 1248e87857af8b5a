import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/** The ingest key a request presented, and where: the problem of a refused key names that place. */
export interface PresentedKey {
  publicKey: string;
  field: string;
}

/** A DSN public key: what `create-ingest-key` hands out, and what no header injection gets past. */
const KEY = /^[A-Za-z0-9_-]{1,128}$/;

const missing = (message: string, field: string) => new HeadspaceError(ErrorCodes.authUnauthenticated, message, { field });

function checked(value: string, field: string): PresentedKey {
  if (!KEY.test(value)) throw missing(`${field} does not hold a well-formed ingest key (1-128 letters, digits, - or _)`, field);
  return { publicKey: value, field };
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * `Sentry sentry_key=…, sentry_version=7, sentry_client=…` (X-Sentry-Auth, or Authorization in old
 * SDKs): the pairs as a map. The `Sentry ` prefix is optional, as Sentry's relay treats it.
 */
export function parseSentryAuth(header: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const part of header.replace(/^\s*sentry\s+/i, '').split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    pairs[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
  }
  return pairs;
}

/** The public key (user part) of a DSN `http(s)://<key>[:<secret>]@host/<projectId>`. */
export function dsnPublicKey(dsn: string): string | undefined {
  try {
    const url = new URL(dsn);
    return url.username ? decodeURIComponent(url.username) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Sentry routes' key, looked for where SDKs put it: the X-Sentry-Auth header (browsers and
 * Python), `?sentry_key=` (the Node SDK, beacon transports), the `Authorization: Sentry …` header of
 * old SDKs, then the envelope header's `dsn`. The first place holding one is the one checked.
 */
export function sentryKey(
  headers: Record<string, string | string[] | undefined>,
  query: Record<string, unknown>,
  envelopeDsn?: unknown,
): PresentedKey {
  const auth = single(headers['x-sentry-auth']);
  if (auth !== undefined) {
    const key = parseSentryAuth(auth).sentry_key;
    if (key === undefined) throw missing('X-Sentry-Auth must carry sentry_key=<public key>', 'X-Sentry-Auth');
    return checked(key, 'X-Sentry-Auth');
  }
  const fromQuery = query.sentry_key;
  if (fromQuery !== undefined) return checked(Array.isArray(fromQuery) ? String(fromQuery[0]) : String(fromQuery), 'sentry_key');
  const authorization = single(headers.authorization);
  if (authorization !== undefined && /^\s*sentry\s/i.test(authorization)) {
    const key = parseSentryAuth(authorization).sentry_key;
    if (key !== undefined) return checked(key, 'Authorization');
  }
  if (typeof envelopeDsn === 'string') {
    const key = dsnPublicKey(envelopeDsn);
    if (key !== undefined) return checked(key, 'dsn');
  }
  throw missing('An ingest key is required: X-Sentry-Auth: Sentry sentry_key=<key>, ?sentry_key=<key>, or a dsn in the envelope header', 'X-Sentry-Auth');
}

/** The plain endpoint's key: `X-Headspace-Ingest-Key: <key>`, or `Authorization: DSN <key>`. */
export function plainIngestKey(headers: Record<string, string | string[] | undefined>): PresentedKey {
  const header = single(headers['x-headspace-ingest-key']);
  if (header !== undefined) return checked(header.trim(), 'X-Headspace-Ingest-Key');
  const authorization = single(headers.authorization);
  const dsn = authorization === undefined ? undefined : /^\s*DSN\s+(\S+)\s*$/i.exec(authorization);
  if (dsn) return checked(dsn[1], 'Authorization');
  throw missing('An ingest key is required: X-Headspace-Ingest-Key: <public key> (API tokens cannot ingest)', 'X-Headspace-Ingest-Key');
}
