import { processSecretRedactor } from '@headspace/contracts';

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

/**
 * Every string logged goes through the same redaction as what is recorded (libs/contracts): key
 * formats, URL passwords, secret-named assignments and this process's own secret values.
 */
export function redactSecrets(text: string): string {
  return processSecretRedactor().text(text);
}

/** Copies plain objects/arrays with every string passed through redactSecrets. */
export function redactDeep<T>(value: T, depth = 4): T {
  return processSecretRedactor().deep(value, { maxDepth: depth });
}
