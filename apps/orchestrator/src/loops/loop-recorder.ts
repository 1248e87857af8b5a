import { loopStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { loopDecider, type LoopCommand, type LoopEvent, type LoopState } from './loop.decider';

/** The loop as its stream has it now. */
export async function loadLoop(store: EventStore, loopId: string): Promise<LoopState> {
  const recorded = (await store.readStream(loopStreamId(loopId))) as Array<RecordedEvent & LoopEvent>;
  return foldEvents(loopDecider, recorded.map(({ type, data }) => ({ type, data }) as LoopEvent));
}

/** The command id of a step: an iteration's steps are named by their iteration, so a step repeated after a crash appends nothing. */
const stepId = (c: LoopCommand): string => ('iteration' in c ? `${c.loopId}:${c.type}:${c.iteration}` : `${c.loopId}:${c.type}`);

/**
 * Records a step of the loop through the one command handler. Secrets in the task, summaries,
 * learnings and check output are redacted before they are decided on; the workspace is kept as
 * given (the checkout is made from it). A check command holding a secret is refused at the start.
 */
export async function recordLoop(store: EventStore, team: string, given: LoopCommand): Promise<{ state: LoopState; streamVersion: bigint; events: LoopEvent[] }> {
  const command = redactStep(given, given.type === 'start-loop' ? ['workspace'] : []);
  // Team and loop ride along as metadata: the SSE stream scopes by team and filters `run=<loopId>` on it.
  const outcome = await handleCommand(store, loopDecider, loopStreamId(given.loopId), command, { commandId: stepId(given) }, { metadata: { team, runId: given.loopId } });
  return { state: outcome.state, streamVersion: outcome.streamVersion, events: outcome.events };
}
