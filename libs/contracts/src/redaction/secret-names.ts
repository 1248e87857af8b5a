/**
 * Names of variables (and of `.env`/JSON keys) whose values are secrets: keys, tokens, passwords,
 * credentials, connection strings. The one list: agent shells and hooks never inherit such a
 * variable (scrubEnv), and their values are redacted from everything recorded or logged.
 */
export const SECRET_NAME =
  /(API_?KEY|SECRET|TOKEN|PASSW(OR)?D|CREDENTIAL|PRIVATE_?KEY|ACCESS_?KEY|SESSION_?KEY|DATABASE_URL|COOKIE|(^|_)DSN$|(^|_)AUTH($|_))/i;

/** Well-known secret variables scrubbed even where their name would not match SECRET_NAME. */
export const ALWAYS_SECRET_NAMES: ReadonlySet<string> = new Set([
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'NPM_TOKEN',
  'PGPASSWORD',
]);

export function isSecretName(name: string): boolean {
  return ALWAYS_SECRET_NAMES.has(name) || SECRET_NAME.test(name);
}
