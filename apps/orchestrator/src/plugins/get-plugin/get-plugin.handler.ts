import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, getPlugin, HeadspaceError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadPlugin, pluginView } from '../plugin-recorder';

/** `hs.qry.orchestrator.get-plugin`: folds the plugin's stream (current right after a command). */
@Controller()
export class GetPluginHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getPlugin)
  async handle({ team, plugin }: z.output<typeof getPlugin.request>) {
    const state = await loadPlugin(this.store, team, plugin);
    if (state.status === 'none' || state.status === 'removed') throw new HeadspaceError(ErrorCodes.pluginNotFound, `No plugin "${plugin}" in team ${team}`, { field: 'plugin' });
    return pluginView(state);
  }
}
