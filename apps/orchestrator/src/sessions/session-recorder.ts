import { sessionStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { redactStep } from '../redaction/redact-step';
import { countSessionEvents } from '../telemetry/orchestrator-metrics';
import { agentSessionDecider, type SessionCommand, type SessionEvent, type SessionState } from './agent-session.decider';

/**
 * The one writer of a session's stream while its runner holds it: decides each step against the
 * state in hand and appends at the exact version, so a second runner that took the session over
 * makes this one fail with a ConcurrencyError instead of interleaving. Command ids are derived from
 * the step (turn, tool use id), so repeating a step after a crash appends nothing.
 */
export class SessionRecorder {
  private constructor(
    private readonly store: EventStore,
    readonly sessionId: string,
    private history: SessionEvent[],
    private version: bigint,
  ) {
    this.current = foldEvents(agentSessionDecider, history);
  }

  /** The state folded once at load and evolved on every record (the runner reads it many times a turn). */
  private current: SessionState;

  static async load(store: EventStore, sessionId: string): Promise<SessionRecorder> {
    const recorded = (await store.readStream(sessionStreamId(sessionId))) as Array<RecordedEvent & SessionEvent>;
    const history = recorded.map(({ type, data }) => ({ type, data }) as SessionEvent);
    return new SessionRecorder(store, sessionId, history, recorded.length ? recorded[recorded.length - 1].streamVersion : 0n);
  }

  get events(): readonly SessionEvent[] {
    return this.history;
  }

  get state(): SessionState {
    return this.current;
  }

  async record(command: SessionCommand, extra: Record<string, unknown> = {}): Promise<SessionEvent[]> {
    return this.begin(command, extra).recorded;
  }

  /**
   * Decides a step at once and starts its append: the caller gets the step's events before they are
   * durable (to build the next request while the append runs) and must let `recorded` settle before
   * recording anything else — the next append's expected version is the one this append leaves.
   */
  begin(given: SessionCommand, extra: Record<string, unknown> = {}): PendingStep {
    // Secrets never enter the stream: the step is redacted before it is decided (see redactStep).
    const command = redactStep(given);
    const started = this.state.started ?? (command.type === 'start-session' ? command : undefined);
    // Team and run ride along as metadata, so readers of a single event (the SSE stream) know whose it is.
    const metadata = { ...(started ? { team: started.team, ...(started.runId ? { runId: started.runId } : {}) } : {}), ...extra };
    // Decided here for the caller at once, and again (pure, the same events) by the one command handler that appends them.
    const events = agentSessionDecider.decide(command, this.state);
    if (events.length === 0) return { events, recorded: Promise.resolve(events) };
    const recorded = handleCommand(this.store, agentSessionDecider, sessionStreamId(this.sessionId), command, { commandId: stepId(command) }, {
      inHand: { state: this.current, version: this.version },
      retry: false,
      metadata,
    }).then((outcome) => {
      if (!outcome.replayed) this.history = [...this.history, ...outcome.events];
      if (!outcome.replayed) countSessionEvents(this.sessionId, outcome.events, outcome.state);
      this.current = outcome.state;
      this.version = outcome.streamVersion;
      return outcome.events;
    });
    return { events, recorded };
  }
}

/** A step decided and being appended. */
export interface PendingStep {
  events: SessionEvent[];
  recorded: Promise<SessionEvent[]>;
}

function stepId(command: SessionCommand): string {
  switch (command.type) {
    case 'record-model-call':
      return `${command.sessionId}:turn:${command.turn}`;
    case 'record-tool-call':
      return `${command.sessionId}:tool:${command.toolUseId}`;
    case 'record-budget-decision':
      return `${command.sessionId}:budget:${command.turn}`;
    case 'record-compaction':
      return `${command.sessionId}:compact:${command.turn}`;
    default:
      return `${command.sessionId}:${command.type}`;
  }
}
