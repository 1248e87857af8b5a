import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * `.mcp.json` in Claude Code's format: `{ "mcpServers": { "<name>": { "type": "stdio", "command",
 * "args", "env" } | { "type": "http", "url", "headers" } } }`, with `${VAR}` and `${VAR:-default}`
 * expanded in command, args, env values, url and header values. A server entry without `type` but
 * with a `command` is stdio, as in Claude Code.
 */

const stdioServerSchema = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(10_000)).max(200).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'), z.string().max(100_000)).default({}),
});

const httpServerSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  headers: z.record(z.string().min(1).max(200), z.string().max(10_000)).default({}),
});

export const mcpServerSchema = z.discriminatedUnion('type', [stdioServerSchema, httpServerSchema]);
/** Before `${VAR}` expansion a URL may be all variables: it is checked as a URL afterwards. */
const writtenServerSchema = z.discriminatedUnion('type', [stdioServerSchema, httpServerSchema.extend({ url: z.string().min(1).max(4096) })]);
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type McpStdioServerConfig = z.output<typeof stdioServerSchema>;
export type McpHttpServerConfig = z.output<typeof httpServerSchema>;

const fileSchema = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()).default({}) });

export type McpConfigScope = 'project' | 'user';

/** A server as configured: where it came from and what to start or reach. */
export interface McpServerEntry {
  name: string;
  scope: McpConfigScope;
  source: string;
  config: McpServerConfig;
}

/** A file or one server entry that could not be used: the file, the field and why. */
export interface McpConfigProblem {
  source: string;
  /** `mcpServers.<name>.<field>`, or `(root)` for the whole file. */
  field: string;
  message: string;
  /** The server left out, when the problem is one entry's. */
  server?: string;
}

export interface McpConfig {
  servers: McpServerEntry[];
  problems: McpConfigProblem[];
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` / `${VAR:-default}`; a variable that is unset and has no default is listed in `missing`. */
export function expandVars(text: string, env: Readonly<Record<string, string | undefined>>, missing: string[] = []): string {
  return text.replace(VAR, (_m, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
}

function expandServer(config: McpServerConfig, env: Readonly<Record<string, string | undefined>>, missing: string[]): McpServerConfig {
  const x = (s: string) => expandVars(s, env, missing);
  const values = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, x(v)]));
  if (config.type === 'stdio') return { ...config, command: x(config.command), args: config.args.map(x), env: values(config.env) };
  return { ...config, url: x(config.url), headers: values(config.headers) };
}

const fieldOf = (path: ReadonlyArray<PropertyKey>, keys: readonly string[] = []) => [...path, ...keys.slice(0, 1)].map(String).join('.');

/**
 * Parses one file's JSON. A file that is not an object with `mcpServers` is one problem at `(root)`;
 * otherwise each server is judged alone, so one bad entry leaves out only that server. Variables are
 * expanded after the first check (a URL may come entirely from `${VAR}`); a variable with neither value
 * nor default leaves the server out, naming it. Fields are checked as written, then again expanded.
 */
export function parseMcpConfig(raw: unknown, source: string, scope: McpConfigScope, env: Readonly<Record<string, string | undefined>>): McpConfig {
  const file = fileSchema.safeParse(raw);
  if (!file.success) return { servers: [], problems: [{ source, field: fieldOf(file.error.issues[0].path) || '(root)', message: file.error.issues[0].message }] };
  const servers: McpServerEntry[] = [];
  const problems: McpConfigProblem[] = [];
  for (const [name, entry] of Object.entries(file.data.mcpServers)) {
    const at = `mcpServers.${name}`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      problems.push({ source, field: at, server: name, message: 'server names are 1-64 letters, digits, "_", "-" or "."' });
      continue;
    }
    const typed = typeof entry === 'object' && entry !== null && !('type' in entry) && 'command' in entry ? { type: 'stdio', ...entry } : entry;
    const parsed = writtenServerSchema.safeParse(typed);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      problems.push({ source, field: `${at}.${fieldOf(issue.path, keys) || 'type'}`, server: name, message: issue.message });
      continue;
    }
    const missing: string[] = [];
    const expanded = expandServer(parsed.data, env, missing);
    if (missing.length > 0) {
      problems.push({ source, field: at, server: name, message: `environment variable ${[...new Set(missing)].join(', ')} is not set and has no default` });
      continue;
    }
    const recheck = mcpServerSchema.safeParse(expanded);
    if (!recheck.success) {
      const issue = recheck.error.issues[0];
      problems.push({ source, field: `${at}.${fieldOf(issue.path)}`, server: name, message: `${issue.message} (after expanding variables)` });
      continue;
    }
    servers.push({ name, scope, source, config: recheck.data });
  }
  return { servers, problems };
}

async function readConfigFile(path: string, scope: McpConfigScope, env: Readonly<Record<string, string | undefined>>): Promise<McpConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], problems: [] };
    return { servers: [], problems: [{ source: path, field: '(root)', message: `cannot be read: ${(e as Error).message}` }] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { servers: [], problems: [{ source: path, field: '(root)', message: `not JSON: ${(e as Error).message}` }] };
  }
  return parseMcpConfig(raw, path, scope, env);
}

export interface McpConfigLocations {
  /** The project (the session's workspace root): `<projectDir>/.mcp.json`. */
  projectDir?: string;
  /** The agents' home (`HS_AGENT_HOME`): `<homeDir>/.mcp.json`. */
  homeDir?: string;
  /** Where `${VAR}` values come from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

export const MCP_CONFIG_FILE = '.mcp.json';

/**
 * The servers of the user and project files; the project's wins on a name clash. Problems never
 * throw: a session goes on without what could not be used, and the listing API shows why.
 */
export async function loadMcpConfig(loc: McpConfigLocations): Promise<McpConfig> {
  const env = loc.env ?? process.env;
  const [user, project] = await Promise.all([
    loc.homeDir ? readConfigFile(join(loc.homeDir, MCP_CONFIG_FILE), 'user', env) : { servers: [], problems: [] },
    loc.projectDir ? readConfigFile(join(loc.projectDir, MCP_CONFIG_FILE), 'project', env) : { servers: [], problems: [] },
  ]);
  const byName = new Map<string, McpServerEntry>();
  for (const s of [...user.servers, ...project.servers]) byName.set(s.name, s);
  return { servers: [...byName.values()], problems: [...user.problems, ...project.problems] };
}
