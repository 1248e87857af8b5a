import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { recordLearning } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { recordLearningStep } from '../learning-recorder';

/** `hs.cmd.orchestrator.record-learning`: a learning added by hand (source `manual`); a retried request records it once. */
@Controller()
export class RecordLearningHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(recordLearning)
  async handle(@Payload() input: z.output<typeof recordLearning.request>, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const learningId = input.learningId ?? runIdFor('learning', ctx.commandId ?? randomUUID());
    const { iteration, ...fields } = input;
    const { streamVersion } = await recordLearningStep(this.store, input.team, {
      type: 'record-learning',
      ...fields,
      learningId,
      source: { kind: 'manual', ...(iteration ? { iteration } : {}) },
      now: new Date().toISOString(),
    });
    return { learningId, streamVersion: streamVersion.toString() };
  }
}
