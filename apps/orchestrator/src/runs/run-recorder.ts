import { runStreamId } from '@headspace/contracts';
import { createHash } from 'node:crypto';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { countRunEvents } from '../telemetry/orchestrator-metrics';
import { runDecider, type RunCommand, type RunEvent, type RunState } from './run.decider';
import { RunSpans } from './run-spans';

/**
 * Loads a run and records commands against it at the exact stream version. Command ids come from
 * the command's step (a session, a merge, an answer), so a step repeated after a crash or by a
 * second process appends nothing new; a concurrent writer makes this one fail and retry.
 */
export class RunRecorder {
  private current: RunState;

  private constructor(
    private readonly store: EventStore,
    readonly runId: string,
    private history: RunEvent[],
    private version: bigint,
    /** The run's trace: its spans are parented on it and recorded as the events that end them are. */
    readonly spans: RunSpans,
  ) {
    this.current = foldEvents(runDecider, history);
  }

  static async load(store: EventStore, runId: string): Promise<RunRecorder> {
    const recorded = (await store.readStream(runStreamId(runId))) as Array<RecordedEvent & RunEvent>;
    return new RunRecorder(store, runId, recorded.map(({ type, data }) => ({ type, data }) as RunEvent), recorded.length ? recorded[recorded.length - 1].streamVersion : 0n, RunSpans.of(runId, recorded[0]?.metadata));
  }

  get state(): RunState {
    return this.current;
  }

  get events(): readonly RunEvent[] {
    return this.history;
  }

  get streamVersion(): bigint {
    return this.version;
  }

  /** Through the one command handler, on the run as held: a conflict means another process took the run, so it is not retried. */
  async record(given: RunCommand): Promise<RunEvent[]> {
    // Secrets in session outcomes, answers and failure reasons never enter the stream. A run's source
    // is kept as given: the checkout is made from the recorded value.
    const command = redactStep(given, given.type === 'start-run' ? ['source'] : []);
    // The team rides along as metadata, so readers of a single event (the SSE stream) know whose it is.
    const team = this.state.started?.team ?? (command.type === 'start-run' ? command.team : undefined);
    const outcome = await handleCommand(this.store, runDecider, runStreamId(this.runId), command, { commandId: stepId(command, this.state) }, {
      inHand: { state: this.current, version: this.version },
      retry: false,
      ...(team ? { metadata: { team, runId: this.runId } } : {}),
    });
    if (!outcome.replayed) {
      this.spans.ended(this.history, outcome.events, outcome.state.phase !== this.current.phase);
      this.history = [...this.history, ...outcome.events];
    }
    if (!outcome.replayed) countRunEvents(outcome.events);
    this.current = outcome.state;
    this.version = outcome.streamVersion;
    return outcome.events;
  }
}

/** The command id of a run step: event ids derive from it, so it must name the step, not the attempt at it. */
function stepId(command: RunCommand, state: RunState): string {
  const run = command.runId;
  switch (command.type) {
    case 'start-session':
      return `${run}:session:${command.sessionId}`;
    case 'record-session-outcome':
      return `${run}:outcome:${command.sessionId}`;
    case 'record-persona-queued':
      return `${run}:queued:${command.sessionId}:${command.requestId}`;
    case 'record-persona-released':
      return `${run}:released:${command.sessionId}`;
    case 'record-tasks-created':
      return `${run}:tasks-created:${createHash('sha256').update(command.tasks.map((t) => t.key).join(',')).digest('hex').slice(0, 16)}`;
    case 'record-merge': {
      // A fix run's check can send a merged task back: its next merge is a step of its own.
      const merges = state.tasks[command.taskKey]?.merges ?? 0;
      return `${run}:merge:${command.taskKey}:${command.result.status}${merges ? `:m${merges + 1}` : ''}`;
    }
    case 'record-regression-check':
      return `${run}:regression-check:${command.stage}:${state.regressionChecks.filter((c) => c.stage === command.stage).length + 1}`;
    case 'answer-escalation':
      return `${run}:escalation:${command.escalationId}`;
    case 'answer-questions':
      return `${run}:answer:r${state.pendingQuestions?.round ?? 0}`;
    case 'approve-tasks':
    case 'reject-tasks':
      return `${run}:plan-decision:d${state.drafts}`;
    default:
      return `${run}:${command.type}`;
  }
}
