import { parseAgentDefinition, parseHookSettings, parseMcpConfig, type HookSettings, type McpServerEntry } from '@headspace/agent-runtime';
import { ErrorCodes, HeadspaceError, pluginManifestSchema, type PluginManifest, type PluginParts } from '@headspace/contracts';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const MANIFEST_FILE = join('.claude-plugin', 'plugin.json');
/** What a plugin's hook commands and MCP servers call their own root (Claude Code's variable). */
export const PLUGIN_ROOT_VAR = 'CLAUDE_PLUGIN_ROOT';

const invalid = (field: string, message: string, file = MANIFEST_FILE) =>
  new HeadspaceError(ErrorCodes.pluginManifestInvalid, `Invalid plugin: ${file}: ${field}: ${message}`, { field, details: { file } });

const fieldOf = (path: ReadonlyArray<PropertyKey>) => path.map(String).join('.') || '(root)';

/** plugin.json's object checked against Claude Code's manifest format; a bad one names the first field. */
export function validateManifest(raw: unknown): PluginManifest {
  const parsed = pluginManifestSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalid(fieldOf(issue.path), issue.message);
}

/** The manifest of a plugin directory: a missing file or bad JSON is named like a bad field. */
export async function readManifest(dir: string): Promise<PluginManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw invalid('(file)', 'no .claude-plugin/plugin.json: a plugin needs a manifest');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw invalid('(root)', `not JSON (${(e as Error).message})`);
  }
  return validateManifest(raw);
}

/** `${CLAUDE_PLUGIN_ROOT}` in a part's JSON becomes the installed copy's directory. */
export const withPluginRoot = (text: string, dir: string) => text.replaceAll(`\${${PLUGIN_ROOT_VAR}}`, dir);

const entries = (dir: string) => readdir(dir, { withFileTypes: true }).catch(() => []);
const isFile = (path: string) => stat(path).then((s) => s.isFile(), () => false);

async function readJson(dir: string, rel: string): Promise<unknown | undefined> {
  const file = join(dir, rel);
  if (!(await isFile(file))) return undefined;
  try {
    return JSON.parse(withPluginRoot(await readFile(file, 'utf8'), dir));
  } catch (e) {
    throw invalid('(root)', `not JSON (${(e as Error).message})`, rel);
  }
}

/** The plugin's hooks settings (`hooks/hooks.json`, or the manifest's `hooks`); none when it has none. */
export async function readPluginHooks(dir: string, manifest: PluginManifest): Promise<HookSettings | undefined> {
  const rel = typeof manifest.hooks === 'string' ? manifest.hooks : join('hooks', 'hooks.json');
  const raw = manifest.hooks && typeof manifest.hooks === 'object' ? JSON.parse(withPluginRoot(JSON.stringify(manifest.hooks), dir)) : await readJson(dir, rel);
  if (raw === undefined) return undefined;
  try {
    return parseHookSettings(raw, rel);
  } catch (e) {
    throw invalid((e as HeadspaceError).field ?? '(root)', (e as Error).message, rel);
  }
}

/** The plugin's MCP servers (`.mcp.json`, or the manifest's `mcpServers`), `${CLAUDE_PLUGIN_ROOT}` resolved. */
export async function readPluginMcpServers(dir: string, manifest: PluginManifest, env: Readonly<Record<string, string | undefined>> = process.env): Promise<McpServerEntry[]> {
  const rel = typeof manifest.mcpServers === 'string' ? manifest.mcpServers : '.mcp.json';
  const inline = manifest.mcpServers && typeof manifest.mcpServers === 'object' ? JSON.parse(withPluginRoot(JSON.stringify(manifest.mcpServers), dir)) : undefined;
  const raw = inline ? (inline.mcpServers ? inline : { mcpServers: inline }) : await readJson(dir, rel);
  if (raw === undefined) return [];
  const { servers, problems } = parseMcpConfig(raw, join(dir, rel), 'project', { ...env, [PLUGIN_ROOT_VAR]: dir });
  if (problems.length > 0) throw invalid(problems[0].field, problems[0].message, rel);
  return servers;
}

/**
 * Everything the plugin bundles, each part checked as the registry that will load it checks it: an
 * agent file that does not parse, a bad hooks.json or .mcp.json refuses the install naming the file
 * and field, so an installed plugin never brings a part that silently does nothing.
 */
export async function readParts(dir: string, manifest: PluginManifest): Promise<PluginParts> {
  const agents: string[] = [];
  for (const e of (await entries(join(dir, 'agents'))).filter((e) => e.isFile() && e.name.endsWith('.md')).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = join('agents', e.name);
    try {
      agents.push(parseAgentDefinition(await readFile(join(dir, rel), 'utf8'), { source: rel, scope: 'plugin', plugin: manifest.name }).key);
    } catch (err) {
      throw invalid((err as HeadspaceError).field ?? '(file)', (err as Error).message, rel);
    }
  }
  const skills: string[] = [];
  for (const e of (await entries(join(dir, 'skills'))).filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    if (await isFile(join(dir, 'skills', e.name, 'SKILL.md'))) skills.push(e.name);
  }
  const commands = (await entries(join(dir, 'commands')))
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => e.name.slice(0, -3))
    .sort();
  const hooks = Object.keys((await readPluginHooks(dir, manifest))?.hooks ?? {}).sort();
  const mcpServers = (await readPluginMcpServers(dir, manifest)).map((s) => s.name).sort();
  return { agents, skills, commands, hooks, mcpServers };
}
