import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, getLearning, HeadspaceError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadLearning } from '../learning-recorder';
import { learningView } from '../learning-view';

/** `hs.qry.orchestrator.get-learning`: folds the learning's stream. */
@Controller()
export class GetLearningHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getLearning)
  async handle({ learningId }: z.output<typeof getLearning.request>) {
    const state = await loadLearning(this.store, learningId);
    if (!state.recorded) throw new HeadspaceError(ErrorCodes.learningNotFound, `No learning "${learningId}"`, { field: 'learningId' });
    return learningView({ ...state, recorded: state.recorded });
  }
}
