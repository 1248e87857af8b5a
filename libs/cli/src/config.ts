import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from './exit-codes';

export interface CliConfig {
  endpoint?: string;
  token?: string;
  /** Default team for commands that take `--team`. */
  team?: string;
}

export const CONFIG_KEYS = ['endpoint', 'token', 'team'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** `$HEADSPACE_CONFIG`, else `$XDG_CONFIG_HOME/headspace/config.json`, else `~/.config/headspace/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HEADSPACE_CONFIG) return env.HEADSPACE_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'headspace', 'config.json');
}

export function readConfig(path: string): CliConfig {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(ExitCode.usage, `The config file ${path} is not valid JSON (${(error as Error).message})`, 'Fix or delete it, then run `headspace config set …` again.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(ExitCode.usage, `The config file ${path} must hold a JSON object`);
  const out: CliConfig = {};
  for (const key of CONFIG_KEYS) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}

/** Writes atomically with mode 0600 (the file holds a token). */
export function writeConfig(path: string, config: CliConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function validateConfigValue(key: string, value: string): asserts key is ConfigKey {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
    throw new CliError(ExitCode.usage, `Unknown config key "${key}"`, `Keys: ${CONFIG_KEYS.join(', ')}`);
  }
  if (key === 'endpoint' && !/^https?:\/\/[^\s/]+(\/.*)?$/.test(value)) {
    throw new CliError(ExitCode.usage, `endpoint must be an http(s) URL, got "${value}"`, 'Example: headspace config set endpoint http://localhost:3000');
  }
  if (value.trim() === '') throw new CliError(ExitCode.usage, `${key} must not be empty`);
}

export interface Resolved {
  endpoint: string;
  token?: string;
  team?: string;
}

/** Flags win over the environment (`HEADSPACE_URL`, `HEADSPACE_TOKEN`, `HEADSPACE_TEAM`), which wins over the file. */
export function resolveSettings(flags: { endpoint?: string; token?: string }, env: NodeJS.ProcessEnv = process.env): Resolved {
  const file = readConfig(configPath(env));
  const endpoint = flags.endpoint || env.HEADSPACE_URL || file.endpoint;
  if (!endpoint) {
    throw new CliError(ExitCode.usage, 'No API endpoint configured', 'Run `headspace config set endpoint <url>` or set HEADSPACE_URL.');
  }
  return {
    endpoint: endpoint.replace(/\/+$/, ''),
    token: flags.token || env.HEADSPACE_TOKEN || file.token,
    team: env.HEADSPACE_TEAM || file.team,
  };
}

/** `abcd…wxyz` — enough to recognise a token, not to use it. */
export function maskToken(token: string | undefined): string {
  if (!token) return '(none)';
  return token.length <= 10 ? '****' : `${token.slice(0, 4)}…${token.slice(-4)}`;
}
