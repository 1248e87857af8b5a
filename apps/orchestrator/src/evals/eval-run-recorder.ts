import { evalRunStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { evalRunDecider, type EvalRunCommand, type EvalRunEvent, type EvalRunState } from './eval-run.decider';

/** The eval run as its stream has it now. */
export async function loadEvalRun(store: EventStore, evalRunId: string): Promise<EvalRunState> {
  const recorded = (await store.readStream(evalRunStreamId(evalRunId))) as Array<RecordedEvent & EvalRunEvent>;
  return foldEvents(evalRunDecider, recorded.map(({ type, data }) => ({ type, data }) as EvalRunEvent));
}

/** The command id names the step (and the task), so a step repeated after a crash appends nothing. */
function stepId(command: EvalRunCommand): string {
  return command.type === 'start-task' || command.type === 'grade-task' ? `${command.evalRunId}:${command.type}:${command.taskId}` : `${command.evalRunId}:${command.type}`;
}

/**
 * Records a step of the eval run through the one command handler; prompts, grader output and the
 * judge's reasons are redacted before they are decided on. Team and run ride along as metadata: the
 * SSE stream scopes by team and filters `run=<evalRunId>` on it.
 */
export async function recordEvalRun(store: EventStore, team: string, given: EvalRunCommand): Promise<{ state: EvalRunState; streamVersion: bigint; events: EvalRunEvent[] }> {
  const command = redactStep(given, given.type === 'start-eval-run' ? ['workspace'] : []);
  const outcome = await handleCommand(store, evalRunDecider, evalRunStreamId(given.evalRunId), command, { commandId: stepId(given) }, { metadata: { team, runId: given.evalRunId } });
  return { state: outcome.state, streamVersion: outcome.streamVersion, events: outcome.events };
}
