const SECRET_KEYS = [
  'password',
  'passwd',
  'secret',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'api_key',
  'authorization',
  'cookie',
  'DATABASE_URL',
  'databaseUrl',
  'connectionString',
  'ANTHROPIC_API_KEY',
];

const HEADER_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-sentry-auth"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
];

/** pino `redact.paths`: auth headers plus secret-named keys up to three levels deep. */
export const REDACT_PATHS = [
  ...HEADER_PATHS,
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
];

const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):[^@/\s]+@/gi;
const SECRET_QUERY_PARAMS = /([?&](?:sentry_key|api_key|apikey|key|token|access_token|password)=)[^&#\s]*/gi;

/** Masks the password of URLs (`postgres://u:***@h`) and secret query parameters in text. */
export function redactSecrets(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1:***@').replace(SECRET_QUERY_PARAMS, '$1***');
}

/** Copies plain objects/arrays with every string passed through redactSecrets. */
export function redactDeep<T>(value: T, depth = 4): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (depth === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth - 1)) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, redactDeep(v, depth - 1)]),
  ) as T;
}
