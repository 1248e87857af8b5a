import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { installPlugin } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { readManifest, readParts } from '../plugin-package';
import { pluginView, recordPlugin } from '../plugin-recorder';
import { PluginSources } from '../plugin-sources';

/**
 * `hs.cmd.orchestrator.install-plugin`: fetches the source into staging, validates the manifest and
 * every part (a bad one is a 400 naming the file and field, and nothing is kept or recorded), keeps
 * the copy under the agent home and records `plugin.installed` — enabled for the team at once.
 */
@Controller()
export class InstallPluginHandler {
  constructor(
    private readonly store: EventStore,
    private readonly sources: PluginSources,
  ) {}

  @MessagePattern(installPlugin)
  async handle(@Payload() { team, source, ref }: z.output<typeof installPlugin.request>, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const staged = await this.sources.stage(source, ref);
    const { manifest, parts } = await inspect(staged.dir).catch(async (error: unknown) => {
      await this.sources.discard(staged);
      throw error;
    });
    const dir = await this.sources.keep(staged, team, manifest.name);
    const { state, streamVersion } = await recordPlugin(
      this.store,
      {
        type: 'install-plugin',
        team,
        plugin: manifest.name,
        version: manifest.version,
        ...(manifest.description ? { description: manifest.description } : {}),
        source: staged.source,
        commit: staged.commit,
        contentHash: staged.contentHash,
        dir,
        parts,
        now: new Date().toISOString(),
      },
      ctx.commandId,
    );
    return { plugin: pluginView(state), streamVersion: streamVersion.toString() };
  }
}

/** The manifest and every part of a staged plugin, or the refusal naming the first bad field. */
async function inspect(dir: string) {
  const manifest = await readManifest(dir);
  return { manifest, parts: await readParts(dir, manifest) };
}
