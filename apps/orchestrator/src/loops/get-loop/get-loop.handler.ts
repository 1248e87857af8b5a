import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getLoop } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadLoop } from '../loop-recorder';
import { loopView } from '../loop-view';

/** `hs.qry.orchestrator.get-loop`: folds the loop's stream (a few events per iteration, always current). */
@Controller()
export class GetLoopHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getLoop)
  async handle({ loopId }: z.output<typeof getLoop.request>) {
    const state = await loadLoop(this.store, loopId);
    if (!state.started) throw new HeadspaceError(ErrorCodes.loopNotFound, `No loop "${loopId}"`, { field: 'loopId' });
    return loopView(state);
  }
}
