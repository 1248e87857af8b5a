import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { HOOK_EVENTS, type HookEventName } from './events';

/**
 * Where hooks come from, highest precedence first, as Claude Code orders its settings (managed >
 * local > project > user, see ADR 0042): enterprise managed settings, project-local
 * (`.claude/settings.local.json`), project (`.claude/settings.json`), user (`~/.claude/settings.json`),
 * then plugin, skill frontmatter and the agent definition / persona (subagent frontmatter, where
 * Stop becomes SubagentStop). Every matching hook runs; precedence decides whose reason, updated
 * input and `env` value wins when they differ. `.headspace/` beside `.claude/` is read too.
 */
export const HOOK_SCOPES = ['managed', 'local', 'project', 'user', 'plugin', 'skill', 'agent'] as const;
export type HookScope = (typeof HOOK_SCOPES)[number];
export const scopeRank = (scope: HookScope): number => HOOK_SCOPES.indexOf(scope);

/** Seconds. Command hooks default to 10 minutes (Req 3.2); model-evaluated hooks are shorter. */
export const DEFAULT_HOOK_TIMEOUT_S = { command: 600, prompt: 30, agent: 60 } as const;

const timeout = z.number().positive().max(3600).optional().describe('Seconds before the hook is stopped.');

export const commandHookSchema = z.strictObject({
  type: z.literal('command'),
  command: z.string().min(1).max(10_000),
  timeout,
  async: z.boolean().optional(),
});
export const promptHookSchema = z.strictObject({
  type: z.literal('prompt'),
  prompt: z.string().min(1).max(50_000),
  model: z.string().min(1).max(100).optional(),
  timeout,
  async: z.boolean().optional(),
});
export const agentHookSchema = z.strictObject({
  type: z.literal('agent'),
  prompt: z.string().min(1).max(50_000),
  model: z.string().min(1).max(100).optional(),
  timeout,
  async: z.boolean().optional(),
});
export const hookHandlerSchema = z.discriminatedUnion('type', [commandHookSchema, promptHookSchema, agentHookSchema]);
export type CommandHookConfig = z.output<typeof commandHookSchema>;
export type PromptHookConfig = z.output<typeof promptHookSchema>;
export type AgentHookConfig = z.output<typeof agentHookSchema>;
export type HookHandlerConfig = z.output<typeof hookHandlerSchema>;

const matcherSchema = z
  .string()
  .max(1000)
  .refine((m) => {
    try {
      compileMatcher(m);
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid regular expression');

export const hookMatcherGroupSchema = z.strictObject({
  matcher: matcherSchema.optional(),
  hooks: z.array(hookHandlerSchema).min(1),
});
export type HookMatcherGroup = z.output<typeof hookMatcherGroupSchema>;

export const hooksConfigSchema = z.strictObject(
  Object.fromEntries(HOOK_EVENTS.map((e) => [e, z.array(hookMatcherGroupSchema).optional()])) as Record<HookEventName, z.ZodOptional<z.ZodArray<typeof hookMatcherGroupSchema>>>,
);
export type HooksConfig = Partial<Record<HookEventName, HookMatcherGroup[]>>;

/** A settings file: `hooks`, `env`, `allowManagedHooksOnly` (managed scope only); other keys are left alone. */
export const hookSettingsSchema = z.looseObject({
  hooks: hooksConfigSchema.optional(),
  env: z.record(z.string(), z.string()).optional(),
  allowManagedHooksOnly: z.boolean().optional(),
});
export interface HookSettings {
  hooks?: HooksConfig;
  env?: Record<string, string>;
  allowManagedHooksOnly?: boolean;
}

/** `''`, `'*'` or no matcher matches everything; otherwise a regex anchored to the whole value. */
export function compileMatcher(matcher: string | undefined): RegExp | undefined {
  if (matcher === undefined || matcher === '' || matcher === '*') return undefined;
  return new RegExp(`^(?:${matcher})$`);
}

function formatPath(p: ReadonlyArray<PropertyKey>): string {
  return p.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), '');
}

/** Validates a settings object; a bad one is a HOOK.CONFIG_INVALID error naming the path. */
export function parseHookSettings(raw: unknown, source = 'settings'): HookSettings {
  const parsed = hookSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data as HookSettings;
  const issues = parsed.error.issues.map((i) => {
    const keys = i.code === 'unrecognized_keys' ? (i as { keys: string[] }).keys : [];
    const at = formatPath(keys.length > 0 ? [...i.path, keys[0]] : i.path) || '(root)';
    return { at, message: i.message };
  });
  const first = issues[0];
  throw new HeadspaceError(
    ErrorCodes.hookConfigInvalid,
    `Invalid hooks config in ${source}: ${issues.map((i) => `${i.at}: ${i.message}`).join('; ')}`,
    { field: first.at, details: { source, issues } },
  );
}

export interface HookSettingsFile {
  scope: HookScope;
  source: string;
  settings: HookSettings;
}

export interface SettingsLocations {
  /** Workspace / project directory (holds `.claude/settings.json` and `.claude/settings.local.json`, or the `.headspace/` ones). */
  projectDir?: string;
  /** Home directory for `~/.claude/settings.json` and `~/.headspace/settings.json` (default os.homedir()). */
  homeDir?: string;
  /** Enterprise managed settings file (e.g. distributed from a git config repository). */
  managedPath?: string;
}

/** Settings directories of a home or project: Claude Code's own, then ours. */
export const SETTINGS_DIRS = ['.claude', '.headspace'] as const;

/** The settings files of each file-based scope, in precedence order; missing files are skipped. */
export function settingsPaths(loc: SettingsLocations): Array<{ scope: HookScope; path: string }> {
  const out: Array<{ scope: HookScope; path: string }> = [];
  if (loc.managedPath) out.push({ scope: 'managed', path: loc.managedPath });
  if (loc.projectDir) {
    for (const dir of SETTINGS_DIRS) out.push({ scope: 'local', path: path.join(loc.projectDir, dir, 'settings.local.json') });
    for (const dir of SETTINGS_DIRS) out.push({ scope: 'project', path: path.join(loc.projectDir, dir, 'settings.json') });
  }
  for (const dir of SETTINGS_DIRS) out.push({ scope: 'user', path: path.join(loc.homeDir ?? os.homedir(), dir, 'settings.json') });
  return out;
}

/** Reads and validates the settings files of every scope; bad JSON or config names the file and path. */
export async function loadHookSettingsFiles(loc: SettingsLocations): Promise<HookSettingsFile[]> {
  const files: HookSettingsFile[] = [];
  for (const { scope, path: file } of settingsPaths(loc)) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new HeadspaceError(ErrorCodes.hookConfigInvalid, `Invalid hooks config in ${file}: not JSON (${(e as Error).message})`, { field: '(root)', details: { source: file } });
    }
    files.push({ scope, source: file, settings: parseHookSettings(raw, file) });
  }
  return files;
}
