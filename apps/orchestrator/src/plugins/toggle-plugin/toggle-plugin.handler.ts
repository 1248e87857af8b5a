import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { disablePlugin, enablePlugin } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { pluginView, recordPlugin } from '../plugin-recorder';

type Ref = z.output<typeof enablePlugin.request>;

/** `enable-plugin` / `disable-plugin`: whether the team's sessions load the plugin's parts (an unknown plugin is PLUGIN.NOT_FOUND). */
@Controller()
export class TogglePluginHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(enablePlugin)
  enable(@Payload() ref: Ref, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    return this.toggle('enable-plugin', ref, ctx.commandId);
  }

  @MessagePattern(disablePlugin)
  disable(@Payload() ref: Ref, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    return this.toggle('disable-plugin', ref, ctx.commandId);
  }

  private async toggle(type: 'enable-plugin' | 'disable-plugin', { team, plugin }: Ref, commandId?: string) {
    const { state, streamVersion } = await recordPlugin(this.store, { type, team, plugin, now: new Date().toISOString() }, commandId);
    return { plugin: pluginView(state), streamVersion: streamVersion.toString() };
  }
}
