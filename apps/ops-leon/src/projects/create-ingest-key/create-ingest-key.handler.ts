import { randomBytes, randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { createIngestKey, ErrorCodes, HeadspaceError, opsProjectStreamId } from '@headspace/contracts';
import { EventStore, handleCommand, idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { hashKey } from '../project-directory';
import { mustExist, projectDecider } from '../project.decider';

/**
 * `create-ingest-key`: a random 32-hex public key (the Sentry DSN's), of which only the SHA-256 is
 * recorded. It is answered once: a retried command finds its key made and cannot show it again.
 */
@Controller()
export class CreateIngestKeyHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(createIngestKey)
  async handle(@Payload() r: z.output<typeof createIngestKey.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const publicKey = randomBytes(16).toString('hex');
    const keyId = `key_${idFromCommand(commandId, 'ops-ingest-key').replaceAll('-', '').slice(0, 16)}`;
    const command = { type: 'create-key' as const, keyId, keyHash: hashKey(publicKey), hint: publicKey.slice(0, 4), label: r.label, createdBy: r.actor, now: new Date().toISOString() };
    const outcome = await handleCommand(this.store, projectDecider, opsProjectStreamId(r.project), command, { ...ctx, commandId }, {
      before: ({ state }) => void mustExist(state, r.project),
    });
    if (outcome.replayed) {
      throw new HeadspaceError(ErrorCodes.opsIngestKeyAlreadyIssued, `Ingest key ${keyId} was created by this request before and is shown only once: revoke it and create another`, {
        details: { keyId },
      });
    }
    const project = mustExist(outcome.state, r.project);
    return { project: project.project, projectId: project.projectId, keyId, publicKey, hint: command.hint };
  }
}
