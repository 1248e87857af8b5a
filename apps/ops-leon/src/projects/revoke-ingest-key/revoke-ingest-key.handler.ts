import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { opsProjectStreamId, revokeIngestKey } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { ProjectDirectory } from '../project-directory';
import { projectDecider } from '../project.decider';

/** `revoke-ingest-key`: the key ingests nothing more (at once on this instance, within HS_OPS_STATE_CACHE_MS on others). */
@Controller()
export class RevokeIngestKeyHandler {
  constructor(
    private readonly store: EventStore,
    private readonly directory: ProjectDirectory,
  ) {}

  @MessagePattern(revokeIngestKey)
  async handle(@Payload() r: z.output<typeof revokeIngestKey.request>, @Ctx() ctx: RequestContext) {
    const command = { type: 'revoke-key' as const, keyId: r.keyId, reason: r.reason, revokedBy: r.actor, now: new Date().toISOString() };
    const outcome = await handleCommand(this.store, projectDecider, opsProjectStreamId(r.project), command, ctx);
    this.directory.forget(r.project);
    const revoked = outcome.events.find((e) => e.type === 'project.ingest-key-revoked');
    return { project: r.project, keyId: r.keyId, revokedAt: (revoked?.data as { at?: string } | undefined)?.at ?? command.now };
  }
}
