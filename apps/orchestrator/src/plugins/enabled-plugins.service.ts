import { Injectable, Logger } from '@nestjs/common';
import type { HookSettingsFile, McpServerEntry } from '@headspace/agent-runtime';
import { ReadModel } from '@headspace/platform';
import { join } from 'node:path';
import { readManifest, readPluginHooks, readPluginMcpServers } from './plugin-package';
import { PluginRow } from './plugin.entity';

/** What the plugins enabled in a team bring to its sessions, each part pointing into the installed copy. */
export interface EnabledPluginParts {
  plugins: Array<{ name: string; version: string; dir: string }>;
  /** `<copy>/agents`, with the plugin name that namespaces its agents (`plugin:agent`). */
  agentDirs: string[];
  agentLocations: Array<{ plugin: string; dir: string }>;
  /** `<copy>/skills` of each plugin (each holds `<skill>/SKILL.md`). */
  skillDirs: Array<{ plugin: string; dir: string }>;
  /** `<copy>/commands` of each plugin that has commands. */
  commandDirs: Array<{ plugin: string; dir: string }>;
  /** hooks/hooks.json of each plugin, as settings files of the `plugin` scope (`${CLAUDE_PLUGIN_ROOT}` resolved). */
  hooks: HookSettingsFile[];
  /** .mcp.json servers of each plugin (`${CLAUDE_PLUGIN_ROOT}` resolved). */
  mcpServers: McpServerEntry[];
}

/**
 * The one place that says which plugin parts take effect where: only plugins enabled in the team
 * (the plugins read model), read from their installed copies. Agents, hooks, MCP servers and the
 * skills registry all ask here, so disabling a plugin removes every part at once.
 */
@Injectable()
export class EnabledPlugins {
  private readonly logger = new Logger(EnabledPlugins.name);

  constructor(private readonly reads: ReadModel) {}

  async partsFor(team: string): Promise<EnabledPluginParts> {
    const rows = await this.reads.em().find(PluginRow, { team, enabled: true }, { orderBy: { plugin: 'asc' } });
    const out: EnabledPluginParts = { plugins: [], agentDirs: [], agentLocations: [], skillDirs: [], commandDirs: [], hooks: [], mcpServers: [] };
    for (const row of rows) {
      out.plugins.push({ name: row.plugin, version: row.version, dir: row.dir });
      if (row.parts.agents.length > 0) {
        out.agentDirs.push(join(row.dir, 'agents'));
        out.agentLocations.push({ plugin: row.plugin, dir: row.dir });
      }
      if (row.parts.skills.length > 0) out.skillDirs.push({ plugin: row.plugin, dir: join(row.dir, 'skills') });
      if (row.parts.commands.length > 0) out.commandDirs.push({ plugin: row.plugin, dir: join(row.dir, 'commands') });
      if (row.parts.hooks.length === 0 && row.parts.mcpServers.length === 0) continue;
      try {
        const manifest = await readManifest(row.dir);
        const hooks = await readPluginHooks(row.dir, manifest);
        if (hooks) out.hooks.push({ scope: 'plugin', source: `plugin:${row.plugin}`, settings: hooks });
        out.mcpServers.push(...(await readPluginMcpServers(row.dir, manifest)));
      } catch (error) {
        // Validated at install; a copy damaged since then leaves out its hooks and servers, never the session.
        this.logger.warn(`plugin ${row.plugin} of team ${team}: ${(error as Error).message}`);
      }
    }
    return out;
  }
}
