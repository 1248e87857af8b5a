import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { removePlugin } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { recordPlugin } from '../plugin-recorder';

/**
 * `hs.cmd.orchestrator.remove-plugin`: records `plugin.removed`; the team's sessions stop loading it.
 * The installed copy stays on disk: a session started before the removal may still be reading it.
 */
@Controller()
export class RemovePluginHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(removePlugin)
  async handle(@Payload() { team, plugin }: z.output<typeof removePlugin.request>, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const { streamVersion } = await recordPlugin(this.store, { type: 'remove-plugin', team, plugin, now: new Date().toISOString() }, ctx.commandId);
    return { plugin, streamVersion: streamVersion.toString() };
  }
}
