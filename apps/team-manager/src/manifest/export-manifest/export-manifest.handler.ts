import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, exportManifest, HeadspaceError, manifestStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, type RecordedEvent } from '@headspace/event-store';
import type { z } from 'zod';
import { manifestDecider, type ManifestEvent } from '../manifest.decider';
import { resolveMembers, stringifyManifest } from '../manifest-yaml';

/**
 * `export-manifest`: the team's current manifest as team.yaml. Read from the manifest stream (one
 * small stream per team), so an export right after an import returns it: import(export(x)) == x.
 */
@Controller()
export class ExportManifestHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(exportManifest)
  async handle(@Payload() request: z.output<typeof exportManifest.request>) {
    const history = (await this.store.readStream(manifestStreamId(request.team))) as Array<RecordedEvent & ManifestEvent>;
    const { manifest } = foldEvents(manifestDecider, history);
    if (!manifest) {
      throw new HeadspaceError(ErrorCodes.manifestNotFound, `No manifest imported for team "${request.team}"`, { field: 'team' });
    }
    return { team: manifest.team, yaml: stringifyManifest(manifest), manifest, members: resolveMembers(manifest) };
  }
}
