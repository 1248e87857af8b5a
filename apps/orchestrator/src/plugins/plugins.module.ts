import { Global, Module } from '@nestjs/common';
import { EnabledPlugins } from './enabled-plugins.service';
import { GetPluginHandler } from './get-plugin/get-plugin.handler';
import { InstallPluginHandler } from './install-plugin/install-plugin.handler';
import { ListMarketplaceHandler } from './list-marketplace/list-marketplace.handler';
import { ListPluginsHandler } from './list-plugins/list-plugins.handler';
import { PluginSources } from './plugin-sources';
import { PluginsProjection } from './plugins.projection';
import { RemovePluginHandler } from './remove-plugin/remove-plugin.handler';
import { TogglePluginHandler } from './toggle-plugin/toggle-plugin.handler';

/**
 * Plugins (issue 25 scope 1, ADR 0045): Claude Code-format plugins installed per team, event-sourced,
 * copied under the agent home; EnabledPlugins is global so agents, sessions and the skills registry
 * read a team's enabled parts from one place.
 */
@Global()
@Module({
  providers: [PluginSources, PluginsProjection, EnabledPlugins],
  controllers: [InstallPluginHandler, TogglePluginHandler, RemovePluginHandler, GetPluginHandler, ListPluginsHandler, ListMarketplaceHandler],
  exports: [EnabledPlugins, PluginsProjection],
})
export class PluginsModule {}
