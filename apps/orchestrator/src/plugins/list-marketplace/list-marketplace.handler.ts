import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listMarketplace } from '@headspace/contracts';
import { PluginSources } from '../plugin-sources';

/** `hs.qry.orchestrator.list-marketplace`: the plugins the local marketplace file offers (installable by name). */
@Controller()
export class ListMarketplaceHandler {
  constructor(private readonly sources: PluginSources) {}

  @MessagePattern(listMarketplace)
  async handle() {
    const found = await this.sources.marketplace();
    if (!found) return { marketplace: null, name: null, plugins: [] };
    return {
      marketplace: found.file,
      name: found.catalogue.name,
      plugins: found.catalogue.plugins.map((p) => ({
        name: p.name,
        description: p.description ?? null,
        version: p.version ?? null,
        source: typeof p.source === 'string' ? p.source : p.source.url,
      })),
    };
  }
}
