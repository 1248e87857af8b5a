import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listPlugins } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { PluginRow, pluginViewOf } from '../plugin.entity';

/** `hs.qry.orchestrator.list-plugins`: the team's installed plugins from the plugins read model, by name. */
@Controller()
export class ListPluginsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listPlugins)
  async handle({ team }: z.output<typeof listPlugins.request>) {
    const rows = await this.reads.em().find(PluginRow, { team }, { orderBy: { plugin: 'asc' } });
    return { plugins: rows.map(pluginViewOf) };
  }
}
