import { disablePlugin, enablePlugin, getPlugin, installPlugin, listMarketplace, listPlugins, removePlugin } from '@headspace/contracts';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'plugins';
const path = '/api/v1/teams/:team/plugins';
const toggle = { body: undefined, build: ({ params }: { params: Record<string, string> }) => params };

export const pluginRoutes: ApiRoute[] = [
  commandRoute(installPlugin, {
    operationId: 'installPlugin',
    path,
    tag,
    summary:
      'Install a Claude Code-format plugin (.claude-plugin/plugin.json with agents, skills, commands, hooks, MCP servers) in the team from a directory, a git repository (`ref`: branch, tag or commit) or the marketplace by name; enabled at once. A bad manifest is a 400 naming the field',
    status: 201,
  }),
  queryRoute(listPlugins, { operationId: 'listPlugins', path, tag, summary: 'The team’s installed plugins: version, commit, enabled, parts' }),
  queryRoute(getPlugin, { operationId: 'getPlugin', path: `${path}/:plugin`, tag, summary: 'One installed plugin with its parts (agents, skills, commands, hook events, MCP servers)' }),
  commandRoute(enablePlugin, { operationId: 'enablePlugin', path: `${path}/:plugin/enable`, tag, summary: 'Enable a plugin: the team’s sessions load its agents, skills, hooks and MCP servers', ...toggle }),
  commandRoute(disablePlugin, { operationId: 'disablePlugin', path: `${path}/:plugin/disable`, tag, summary: 'Disable a plugin: its parts leave the team’s sessions (it stays installed)', ...toggle }),
  commandRoute(removePlugin, { operationId: 'removePlugin', method: 'DELETE', path: `${path}/:plugin`, tag, summary: 'Remove (uninstall) a plugin from the team', ...toggle }),
  queryRoute(listMarketplace, {
    operationId: 'listPluginMarketplace',
    path: '/api/v1/plugins/marketplace',
    tag,
    summary: 'The plugins of the local marketplace (HS_PLUGIN_MARKETPLACE, a .claude-plugin/marketplace.json): install one by its name',
  }),
];
