import { Injectable } from '@nestjs/common';
import { approvalStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, priorResultIn, withRetry, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { approvalDecider, type ApprovalCommand, type ApprovalEvent, type ApprovalState } from './approval.decider';

/** Runs an approval command on its stream: prior result first, then read → decide → append at the exact version. */
@Injectable()
export class ApprovalCommands {
  constructor(private readonly store: EventStore) {}

  run(command: ApprovalCommand, commandId: string, ctx?: RequestContext): Promise<{ state: ApprovalState; events: ApprovalEvent[]; streamVersion: bigint }> {
    const streamId = approvalStreamId(command.approvalId);
    return withRetry(async () => {
      const history = (await this.store.readStream(streamId)) as Array<RecordedEvent & ApprovalEvent>;
      const prior = priorResultIn(history, commandId);
      const state = foldEvents(approvalDecider, history);
      const version = history.length ? history[history.length - 1].streamVersion : 0n;
      if (prior) return { state, events: [], streamVersion: prior.nextExpectedVersion };
      const events = approvalDecider.decide(command, state);
      if (events.length === 0) return { state, events, streamVersion: version };
      const result = await this.store.append(streamId, events, {
        expected: version === 0n ? 'no-stream' : version,
        commandId,
        metadata: ctx
          ? { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate }
          : { correlationId: commandId, causationId: commandId },
      });
      return { state: events.reduce(approvalDecider.evolve, state), events, streamVersion: result.nextExpectedVersion };
    });
  }
}
