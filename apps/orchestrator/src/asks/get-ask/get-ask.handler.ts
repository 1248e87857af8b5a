import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getAsk } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadAsk } from '../ask-recorder';
import { askView } from '../ask-view';

/** `hs.qry.orchestrator.get-ask`: folds the ask's stream (a handful of events, always current). */
@Controller()
export class GetAskHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getAsk)
  async handle({ askId }: z.output<typeof getAsk.request>) {
    const state = await loadAsk(this.store, askId);
    if (!state.started) throw new HeadspaceError(ErrorCodes.askNotFound, `No ask "${askId}"`, { field: 'askId' });
    return askView(state);
  }
}
