import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, exportManifest, HeadspaceError, manifestStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, type RecordedEvent } from '@headspace/event-store';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { manifestDecider, type ManifestEvent } from '../manifest.decider';
import { resolveMembers, stringifyManifest } from '../manifest-yaml';

/**
 * `export-manifest`: the team's current manifest as team.yaml. Read from the manifest stream (one
 * small stream per team), so an export right after an import returns it: import(export(x)) == x.
 */
@Injectable()
export class ExportManifestHandler extends ServedHandler<typeof exportManifest> {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(exportManifest, nc);
  }

  async handle(request: z.output<typeof exportManifest.request>) {
    const history = (await this.store.readStream(manifestStreamId(request.team))) as Array<RecordedEvent & ManifestEvent>;
    const { manifest } = foldEvents(manifestDecider, history);
    if (!manifest) {
      throw new HeadspaceError(ErrorCodes.manifestNotFound, `No manifest imported for team "${request.team}"`, { field: 'team' });
    }
    return { team: manifest.team, yaml: stringifyManifest(manifest), manifest, members: resolveMembers(manifest) };
  }
}
