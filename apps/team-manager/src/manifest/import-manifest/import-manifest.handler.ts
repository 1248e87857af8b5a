import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { importManifest, manifestStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, priorResultIn, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { manifestDecider, type ManifestEvent } from '../manifest.decider';
import { parseManifestYaml, resolveMembers } from '../manifest-yaml';

/** `import-manifest`: team.yaml text in, validated (MANIFEST.INVALID naming the field), stored on the team's manifest stream. */
@Controller()
export class ImportManifestHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(importManifest)
  async handle(@Payload() request: z.output<typeof importManifest.request>, @Ctx() ctx: RequestContext) {
    const manifest = parseManifestYaml(request.yaml);
    const commandId = ctx.commandId ?? randomUUID();
    const streamId = manifestStreamId(manifest.team);
    return withRetry(async () => {
      const history = (await this.store.readStream(streamId)) as Array<RecordedEvent & ManifestEvent>;
      const prior = priorResultIn(history, commandId);
      if (prior) return this.reply(manifest, true, prior.nextExpectedVersion);
      const version = history.length ? history[history.length - 1].streamVersion : 0n;
      const events = manifestDecider.decide({ type: 'import-manifest', manifest, now: new Date().toISOString() }, foldEvents(manifestDecider, history));
      if (events.length === 0) return this.reply(manifest, false, version);
      const result = await this.store.append(streamId, events, {
        expected: version === 0n ? 'no-stream' : version,
        commandId,
        metadata: { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate },
      });
      return this.reply(manifest, true, result.nextExpectedVersion);
    });
  }

  private reply(manifest: ReturnType<typeof parseManifestYaml>, changed: boolean, version: bigint) {
    return { team: manifest.team, changed, manifest, members: resolveMembers(manifest), streamVersion: version.toString() };
  }
}
