import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, stopLoop } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadLoop, recordLoop } from '../loop-recorder';

/**
 * `hs.cmd.orchestrator.stop-loop`: records the operator's stop request; like the stop file, it
 * halts the loop at the next iteration boundary, so the iteration at work ends with its checkpoint.
 */
@Controller()
export class StopLoopHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(stopLoop)
  async handle({ team, loopId }: z.output<typeof stopLoop.request>) {
    const found = await loadLoop(this.store, loopId);
    if (found.started?.team !== team) throw new HeadspaceError(ErrorCodes.loopNotFound, `No loop ${loopId} in team ${team}`, { field: 'loopId' });
    const { state } = await recordLoop(this.store, team, { type: 'request-stop', loopId, now: new Date().toISOString() });
    return { loopId, status: state.status === 'none' ? 'running' : state.status, stopRequested: state.stopRequested };
  }
}
