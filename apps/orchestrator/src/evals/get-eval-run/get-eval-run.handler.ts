import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getEvalRun } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadEvalRun } from '../eval-run-recorder';
import { evalRunView } from '../eval-run-view';

/** `hs.qry.orchestrator.get-eval-run`: folds the run's stream (its tasks and grades, always current). */
@Controller()
export class GetEvalRunHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getEvalRun)
  async handle({ evalRunId }: z.output<typeof getEvalRun.request>) {
    const state = await loadEvalRun(this.store, evalRunId);
    if (!state.started) throw new HeadspaceError(ErrorCodes.evalRunNotFound, `No eval run "${evalRunId}"`, { field: 'evalRunId' });
    return evalRunView(state);
  }
}
