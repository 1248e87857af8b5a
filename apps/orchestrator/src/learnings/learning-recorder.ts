import { learningSessionStreamId, learningStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { givenDecider, learningDecider, type GiveCommand, type LearningCommand, type LearningEvent, type LearningState } from './learning.decider';

/** The learning as its stream has it now. */
export async function loadLearning(store: EventStore, learningId: string): Promise<LearningState> {
  const recorded = (await store.readStream(learningStreamId(learningId))) as Array<RecordedEvent & LearningEvent>;
  return foldEvents(learningDecider, recorded.map(({ type, data }) => ({ type, data }) as LearningEvent));
}

/**
 * One step of a learning through the one command handler; an outcome's command id names the
 * session, so it counts once. A learning's text (by hand or from a reflection) has its secrets
 * redacted before it is decided on: it is relayed, streamed and put into every related prompt.
 */
export async function recordLearningStep(store: EventStore, team: string, given: LearningCommand, commandId?: string) {
  const command = given.type === 'record-learning' ? redactStep(given, ['learningId', 'team', 'project', 'persona']) : given;
  const id = commandId ?? (command.type === 'record-learning' ? `${command.learningId}:record` : `${command.learningId}:outcome:${command.sessionId}`);
  return handleCommand(store, learningDecider, learningStreamId(command.learningId), command, { commandId: id }, { metadata: { team } });
}

export async function giveLearnings(store: EventStore, command: GiveCommand) {
  return handleCommand(store, givenDecider, learningSessionStreamId(command.sessionId), command, { commandId: `${command.sessionId}:give-learnings` }, { metadata: { team: command.team } });
}

/** The learning ids given to a session; undefined when none were recorded (the store was off, or the prompt not built yet). */
export async function learningsGivenTo(store: EventStore, sessionId: string): Promise<string[] | undefined> {
  const [first] = await store.readStream(learningSessionStreamId(sessionId));
  return first ? (first.data as { learningIds: string[] }).learningIds : undefined;
}
