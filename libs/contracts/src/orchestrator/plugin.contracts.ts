import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from '../team-manager/team.contracts';

/**
 * Plugins (issue 25 scope 1, seed 003 Req 9 / Journey 7): a directory or git repository in Claude
 * Code's plugin layout — `.claude-plugin/plugin.json` plus `agents/*.md`, `skills/<name>/SKILL.md`,
 * `commands/*.md`, `hooks/hooks.json` and `.mcp.json` — installed per team. Its stream
 * `plugin-<team>.<plugin>` records each install (version, commit, parts), enable, disable and removal.
 */
export const pluginStreamId = (team: string, plugin: string) => `plugin-${team}.${plugin}`;

/** Claude Code's rule for a plugin name: kebab-case, no spaces (it namespaces agents as `plugin:agent`). */
export const pluginNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be kebab-case: 1-64 lowercase letters, digits and dashes');
const semver = z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'must be a semantic version such as 1.2.0');
const relPath = z.string().min(1).max(500).regex(/^\.\//, 'must be a path relative to the plugin root, starting with ./');

/** `.claude-plugin/plugin.json` as Claude Code documents it; unknown keys are kept (forward compatible). */
export const pluginManifestSchema = z.looseObject({
  name: pluginNameSchema,
  version: semver,
  description: z.string().max(2_000).optional(),
  author: z.object({ name: z.string().min(1).max(200), email: z.string().max(200).optional(), url: z.string().max(500).optional() }).optional(),
  homepage: z.string().max(500).optional(),
  repository: z.string().max(500).optional(),
  license: z.string().max(100).optional(),
  keywords: z.array(z.string().max(100)).max(50).optional(),
  commands: z.union([relPath, z.array(relPath)]).optional(),
  agents: z.union([relPath, z.array(relPath)]).optional(),
  hooks: z.union([relPath, z.record(z.string(), z.unknown())]).optional(),
  mcpServers: z.union([relPath, z.record(z.string(), z.unknown())]).optional(),
});
export type PluginManifest = z.output<typeof pluginManifestSchema>;

/** `.claude-plugin/marketplace.json`: a catalogue of plugins installable by name. */
export const marketplaceSchema = z.looseObject({
  name: z.string().min(1).max(100),
  owner: z.object({ name: z.string().min(1).max(200), email: z.string().max(200).optional() }).optional(),
  plugins: z
    .array(
      z.looseObject({
        name: pluginNameSchema,
        /** A path relative to the marketplace root, or `{ source: 'url' | 'git', url }`. */
        source: z.union([z.string().min(1).max(1_000), z.looseObject({ source: z.string(), url: z.string().min(1).max(1_000) })]),
        description: z.string().max(2_000).optional(),
        version: z.string().max(100).optional(),
      }),
    )
    .max(500),
});
export type Marketplace = z.output<typeof marketplaceSchema>;

export const pluginPartsSchema = z.object({
  agents: z.array(z.string().max(200)).max(200),
  skills: z.array(z.string().max(200)).max(200),
  commands: z.array(z.string().max(200)).max(200),
  /** Hook events the plugin registers handlers for (PreToolUse, …). */
  hooks: z.array(z.string().max(100)).max(50),
  mcpServers: z.array(z.string().max(100)).max(100),
});
export type PluginParts = z.output<typeof pluginPartsSchema>;

const at = z.iso.datetime();
const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'plugin', name, schema });

export const pluginInstalled = ev(
  'installed',
  z.object({
    team: teamNameSchema,
    plugin: pluginNameSchema,
    version: z.string().max(100),
    description: z.string().max(2_000).optional(),
    /** Where it came from (a URL's credentials removed). */
    source: z.string().max(1_000),
    /** The git commit installed; null for a plain directory. */
    commit: z.string().max(64).nullable(),
    /** sha256 of the installed files: the same content installs once. */
    contentHash: z.string().length(64),
    /** The copy under the orchestrator's agent home that sessions read. */
    dir: z.string().max(1_000),
    parts: pluginPartsSchema,
    at,
  }),
);
export const pluginEnabled = ev('enabled', z.object({ team: teamNameSchema, plugin: pluginNameSchema, at }));
export const pluginDisabled = ev('disabled', z.object({ team: teamNameSchema, plugin: pluginNameSchema, at }));
export const pluginRemoved = ev('removed', z.object({ team: teamNameSchema, plugin: pluginNameSchema, at }));

export const pluginEvents = [pluginInstalled, pluginEnabled, pluginDisabled, pluginRemoved];

// ---- requests -----------------------------------------------------------------------------------

export const pluginViewSchema = z.object({
  team: z.string(),
  plugin: z.string(),
  version: z.string(),
  description: z.string().nullable(),
  source: z.string(),
  commit: z.string().nullable(),
  enabled: z.boolean(),
  dir: z.string(),
  parts: pluginPartsSchema,
  installedAt: z.string(),
});
export type PluginView = z.output<typeof pluginViewSchema>;

export const installPlugin = defineCommand({
  service: 'orchestrator',
  name: 'install-plugin',
  request: z.object({
    team: teamNameSchema,
    /** A plugin directory, a git repository (path, file:// or https:// URL), or the name of a plugin in the marketplace. */
    source: z.string().trim().min(1).max(1_000),
    /** A git branch, tag or commit to check out (git sources only). */
    ref: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._/-]{0,199}$/, 'must be a branch, tag or commit (not starting with - or .)').optional(),
  }),
  response: z.object({ plugin: pluginViewSchema, streamVersion: z.string() }),
});

const pluginRef = z.object({ team: teamNameSchema, plugin: pluginNameSchema });
const toggled = z.object({ plugin: pluginViewSchema, streamVersion: z.string() });

export const enablePlugin = defineCommand({ service: 'orchestrator', name: 'enable-plugin', request: pluginRef, response: toggled });
export const disablePlugin = defineCommand({ service: 'orchestrator', name: 'disable-plugin', request: pluginRef, response: toggled });
export const removePlugin = defineCommand({ service: 'orchestrator', name: 'remove-plugin', request: pluginRef, response: z.object({ plugin: z.string(), streamVersion: z.string() }) });

export const getPlugin = defineQuery({ service: 'orchestrator', name: 'get-plugin', request: pluginRef, response: pluginViewSchema });

export const listPlugins = defineQuery({
  service: 'orchestrator',
  name: 'list-plugins',
  request: z.object({ team: teamNameSchema }),
  response: z.object({ plugins: z.array(pluginViewSchema) }),
});

export const listMarketplace = defineQuery({
  service: 'orchestrator',
  name: 'list-marketplace',
  request: z.object({}),
  response: z.object({
    /** The configured marketplace file (HS_PLUGIN_MARKETPLACE); null when none is configured. */
    marketplace: z.string().nullable(),
    name: z.string().nullable(),
    plugins: z.array(z.object({ name: z.string(), description: z.string().nullable(), version: z.string().nullable(), source: z.string() })),
  }),
});
