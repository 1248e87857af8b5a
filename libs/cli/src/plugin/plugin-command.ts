import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

const enc = encodeURIComponent;
const idem = () => ({ 'idempotency-key': randomUUID() });

/** What the CLI reads of a plugin (the API's PluginView). */
export interface PluginViewLike {
  plugin: string;
  version: string;
  description: string | null;
  source: string;
  commit: string | null;
  enabled: boolean;
  parts: { agents: string[]; skills: string[]; commands: string[]; hooks: string[]; mcpServers: string[] };
}

/** A plugin's lines: name, version and commit, state, and each kind of part it brings. */
export function pluginLines(p: PluginViewLike): string[] {
  const list = (xs: string[]) => xs.join(', ') || '-';
  return [
    `${p.plugin} ${p.version}${p.commit ? ` (${p.commit.slice(0, 12)})` : ''} ${p.enabled ? 'enabled' : 'disabled'}`,
    `source:      ${p.source}`,
    `agents:      ${list(p.parts.agents)}`,
    `skills:      ${list(p.parts.skills)}`,
    `commands:    ${list(p.parts.commands)}`,
    `hooks:       ${list(p.parts.hooks)}`,
    `mcp servers: ${list(p.parts.mcpServers)}`,
  ];
}

/** A local path the user typed is sent absolute (the orchestrator resolves nothing against the CLI's cwd); URLs and names as given. */
export const sourceArg = (source: string) => (source.startsWith('.') || (source.includes('/') && !/^[a-z]+:\/\//.test(source) && !source.includes('@')) ? resolve(source) : source);

/** `headspace plugin install|enable|disable|remove|list|show|marketplace`: Claude Code-format plugins per team. */
export function addPluginCommands(program: Command, kit: RunCommandKit): void {
  const plugin = program.command('plugin').description('Plugins (Claude Code format): agents, skills, commands, hooks and MCP servers installed per team');
  const path = (team: string, name?: string, action?: string) => `/api/v1/teams/${enc(team)}/plugins${name ? `/${enc(name)}` : ''}${action ? `/${action}` : ''}`;
  const team = { flags: '-t, --team <name>', description: 'team (default: HEADSPACE_TEAM or `config set team`)' };

  plugin
    .command('install')
    .description('Install a plugin from a directory, a git repository (path, file:// or https:// URL) or the marketplace by name')
    .argument('<source>')
    .option(team.flags, team.description)
    .option('--ref <ref>', 'git branch, tag or commit to install')
    .action(async (source: string, o: { team?: string; ref?: string }, cmd: Command) => {
      const body = { source: sourceArg(source), ...(o.ref ? { ref: o.ref } : {}) };
      const out = await kit.client(cmd).post<{ plugin: PluginViewLike }>(path(o.team ?? kit.teamOf(cmd)), body, idem());
      kit.show(cmd, out.plugin, () => {
        success(kit.io, `plugin ${out.plugin.plugin} ${out.plugin.version} installed`);
        pluginLines(out.plugin).forEach((line) => kit.io.out.write(`${line}\n`));
      });
    });

  for (const action of ['enable', 'disable'] as const) {
    plugin
      .command(action)
      .description(action === 'enable' ? 'Enable a plugin: the team’s sessions load its parts' : 'Disable a plugin: its parts leave the team’s sessions')
      .argument('<plugin>')
      .option(team.flags, team.description)
      .action(async (name: string, o: { team?: string }, cmd: Command) => {
        const out = await kit.client(cmd).request<{ plugin: PluginViewLike }>('POST', path(o.team ?? kit.teamOf(cmd), name, action), { headers: idem() });
        kit.show(cmd, out.plugin, () => success(kit.io, `plugin ${name} ${action}d`));
      });
  }

  plugin
    .command('remove')
    .description('Uninstall a plugin from the team')
    .argument('<plugin>')
    .option(team.flags, team.description)
    .action(async (name: string, o: { team?: string }, cmd: Command) => {
      const out = await kit.client(cmd).request('DELETE', path(o.team ?? kit.teamOf(cmd), name), { headers: idem() });
      kit.show(cmd, out, () => success(kit.io, `plugin ${name} removed`));
    });

  plugin
    .command('list')
    .description('The team’s installed plugins')
    .option(team.flags, team.description)
    .action(async (o: { team?: string }, cmd: Command) => {
      const { plugins } = await kit.client(cmd).get<{ plugins: PluginViewLike[] }>(path(o.team ?? kit.teamOf(cmd)));
      kit.show(cmd, plugins, () =>
        printTable(kit.io, plugins, [
          ['plugin', (p) => p.plugin],
          ['version', (p) => p.version],
          ['commit', (p) => (p.commit ?? '').slice(0, 12)],
          ['state', (p) => (p.enabled ? 'enabled' : 'disabled')],
          ['parts', (p) => `${p.parts.agents.length} agents, ${p.parts.skills.length} skills, ${p.parts.hooks.length} hook events, ${p.parts.mcpServers.length} MCP servers`],
        ]),
      );
    });

  plugin
    .command('show')
    .description('One installed plugin with its parts')
    .argument('<plugin>')
    .option(team.flags, team.description)
    .action(async (name: string, o: { team?: string }, cmd: Command) => {
      const p = await kit.client(cmd).get<PluginViewLike>(path(o.team ?? kit.teamOf(cmd), name));
      kit.show(cmd, p, () => pluginLines(p).forEach((line) => kit.io.out.write(`${line}\n`)));
    });

  plugin
    .command('marketplace')
    .description('The plugins of the local marketplace (install one by name)')
    .action(async (_o: unknown, cmd: Command) => {
      const m = await kit.client(cmd).get<{ name: string | null; plugins: Array<{ name: string; version: string | null; description: string | null }> }>('/api/v1/plugins/marketplace');
      kit.show(cmd, m, () => {
        if (!m.name) kit.io.out.write('no marketplace configured (HS_PLUGIN_MARKETPLACE on the orchestrator)\n');
        else printTable(kit.io, m.plugins, [['plugin', (p) => p.name], ['version', (p) => p.version ?? ''], ['description', (p) => p.description ?? '']]);
      });
    });
}
