import { runStreamId } from '@headspace/contracts';
import { foldEvents, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';

/**
 * Loads a run and records commands against it at the exact stream version. Command ids come from
 * the command's step (a session, a merge, an answer), so a step repeated after a crash or by a
 * second reconciler appends nothing new; a concurrent writer makes this one fail and retry.
 */
export class RunRecorder {
  private constructor(
    private readonly store: EventStore,
    readonly runId: string,
    private history: RunEvent[],
    private version: bigint,
  ) {}

  static async load(store: EventStore, runId: string): Promise<RunRecorder> {
    const recorded = (await store.readStream(runStreamId(runId))) as Array<RecordedEvent & RunEvent>;
    return new RunRecorder(store, runId, recorded.map(({ type, data }) => ({ type, data }) as RunEvent), recorded.length ? recorded[recorded.length - 1].streamVersion : 0n);
  }

  get state(): RunState {
    return foldEvents(runDecider, this.history);
  }

  get events(): readonly RunEvent[] {
    return this.history;
  }

  get streamVersion(): bigint {
    return this.version;
  }

  async record(command: RunCommand): Promise<RunEvent[]> {
    const events = runDecider.decide(command, this.state);
    if (events.length === 0) return events;
    const result = await this.store.append(runStreamId(this.runId), events, { expected: this.version === 0n ? 'no-stream' : this.version, commandId: stepId(command) });
    this.history = [...this.history, ...events];
    this.version = result.nextExpectedVersion;
    return events;
  }
}

function stepId(command: RunCommand): string {
  const run = command.runId;
  switch (command.type) {
    case 'start-session':
      return `${run}:session:${command.sessionId}`;
    case 'record-session-outcome':
      return `${run}:outcome:${command.sessionId}`;
    case 'record-merge':
      return `${run}:merge:${command.taskKey}:${command.result.status}`;
    case 'answer-escalation':
      return `${run}:escalation:${command.escalationId}`;
    case 'answer-questions':
      return `${run}:answer:${command.now}`;
    default:
      return `${run}:${command.type}`;
  }
}
