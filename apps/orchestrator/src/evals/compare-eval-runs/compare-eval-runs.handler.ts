import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { compareEvalRuns, ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadEvalRun } from '../eval-run-recorder';
import { evalRunView, scoredRun } from '../eval-run-view';
import { compareRuns } from '../eval-score';

/**
 * `hs.qry.orchestrator.compare-eval-runs`: per-task deltas of `head` against `base` with the
 * regressions listed, from both runs' streams. Both must have completed (409 naming the one that
 * has not): a run still going has no score to compare.
 */
@Controller()
export class CompareEvalRunsHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(compareEvalRuns)
  async handle({ base, head, threshold }: z.output<typeof compareEvalRuns.request>) {
    const [b, h] = await Promise.all([this.completed(base, 'base'), this.completed(head, 'head')]);
    return compareRuns(scoredRun(b), scoredRun(h), threshold);
  }

  private async completed(evalRunId: string, field: 'base' | 'head') {
    const state = await loadEvalRun(this.store, evalRunId);
    if (!state.started) throw new HeadspaceError(ErrorCodes.evalRunNotFound, `No eval run "${evalRunId}"`, { field });
    if (state.status !== 'completed') throw new HeadspaceError(ErrorCodes.evalRunNotFinished, `Eval run "${evalRunId}" is ${state.status}, not completed`, { field });
    return evalRunView(state);
  }
}
