import { derivedContext, isSampled, recordStoredSpan, storedContext, type Context } from '@headspace/telemetry';
import { evolveRun, initialRunState, type RunEvent, type RunPhase } from './run.state';

/** A stretch of the run in one phase, by event index (`end`: the event that left it). */
export interface PhaseSegment {
  phase: RunPhase;
  /** 1 for the first time the run is in this phase, 2 when it comes back (QA sending work back). */
  occurrence: number;
  start: number;
  end?: number;
  startedAt?: string;
  endedAt?: string;
}

const TERMINAL: readonly RunPhase[] = ['completed', 'failed'];

/** When an event happened, by its own record of it (every run event has `at`, run.started `startedAt`). */
export function timeOf(event: RunEvent): string | undefined {
  const data = event.data as { at?: unknown; startedAt?: unknown };
  const at = data.at ?? data.startedAt;
  return typeof at === 'string' ? at : undefined;
}

/** The run's phases in order, folded from its events the way its state is. */
export function phaseSegments(events: readonly RunEvent[]): PhaseSegment[] {
  const segments: PhaseSegment[] = [];
  const seen = new Map<RunPhase, number>();
  let state = initialRunState();
  events.forEach((event, index) => {
    const before = state.status === 'none' ? undefined : state.phase;
    state = evolveRun(state, event);
    if (before === state.phase) return;
    const open = segments.at(-1);
    if (open && open.end === undefined) Object.assign(open, { end: index, endedAt: timeOf(event) });
    if (TERMINAL.includes(state.phase)) return;
    const occurrence = (seen.get(state.phase) ?? 0) + 1;
    seen.set(state.phase, occurrence);
    segments.push({ phase: state.phase, occurrence, start: index, startedAt: timeOf(event) });
  });
  return segments;
}

const phaseKey = (s: PhaseSegment) => `phase:${s.phase}:${s.occurrence}`;
const segmentAt = (segments: PhaseSegment[], index: number) => segments.findLast((s) => s.start <= index);
const dateOf = (at: string | undefined) => (at ? new Date(at) : new Date());

/** Run events that never change the phase (they only add detail). */
const changesPhase = (event: RunEvent) => !['run.persona-queued', 'run.persona-released', 'run.workspace-prepared', 'run.session-started'].includes(event.type);
const endsWork = (event: RunEvent) => ['run.session-ended', 'run.completed', 'run.failed'].includes(event.type);

type SessionStarted = Extract<RunEvent, { type: 'run.session-started' }>;

/**
 * The run's trace (ADR 0028): its run span's context is stored on `run.started`; the spans of its
 * phases and of its sessions' attempts have ids derived from it, so any pass — in any process,
 * before or after a restart — parents its work on them, and each is recorded once, by the write that
 * ends it, with the times the run's events give.
 */
export class RunSpans {
  private constructor(
    readonly runId: string,
    /** The run span, as stored; undefined for runs started without a trace. */
    readonly run: Context | undefined,
  ) {}

  static of(runId: string, startedMetadata: { traceparent?: unknown; tracestate?: unknown } | undefined): RunSpans {
    return new RunSpans(runId, storedContext(startedMetadata));
  }

  /** The span of the phase the run is in (or was last in); the run span before it has one. */
  phase(events: readonly RunEvent[]): Context | undefined {
    if (!this.run) return undefined;
    const current = phaseSegments(events).at(-1);
    return current ? this.phaseSpan(current) : this.run;
  }

  /** The span of one attempt at a task (or phase step): the session's own span is its child. */
  attempt(events: readonly RunEvent[], sessionId: string): Context | undefined {
    if (!this.run) return undefined;
    const started = events.findIndex((e) => e.type === 'run.session-started' && e.data.sessionId === sessionId);
    const segment = started >= 0 ? segmentAt(phaseSegments(events), started) : undefined;
    return derivedContext(segment ? this.phaseSpan(segment) : this.run, `session:${sessionId}`);
  }

  /**
   * Records the spans that `fresh` (events just appended after `before`) ended: phases, attempts, the
   * run. `phaseChanged: false` (the caller folded the run and knows) spares the fold when no session ended.
   */
  ended(before: readonly RunEvent[], fresh: readonly RunEvent[], phaseChanged = true): void {
    if (!this.run || !isSampled(this.run) || !fresh.some((e) => (phaseChanged && changesPhase(e)) || endsWork(e))) return;
    const events = [...before, ...fresh];
    const segments = phaseSegments(events);
    for (const segment of segments) {
      if (segment.end === undefined || segment.end < before.length) continue;
      recordStoredSpan(`phase ${segment.phase}`, {
        span: this.phaseSpan(segment),
        parent: this.run,
        startTime: dateOf(segment.startedAt),
        endTime: dateOf(segment.endedAt),
        attributes: { 'headspace.run_id': this.runId, 'headspace.phase': segment.phase, 'headspace.phase_occurrence': segment.occurrence },
      });
    }
    for (const event of fresh) {
      if (event.type === 'run.session-ended') this.attemptEnded(events, segments, event);
      if (event.type === 'run.completed' || event.type === 'run.failed') this.runEnded(events, event);
    }
  }

  private attemptEnded(events: RunEvent[], segments: PhaseSegment[], ended: Extract<RunEvent, { type: 'run.session-ended' }>): void {
    const index = events.findIndex((e) => e.type === 'run.session-started' && e.data.sessionId === ended.data.sessionId);
    if (index < 0) return;
    const started = events[index] as SessionStarted;
    const segment = segmentAt(segments, index);
    const phase = segment ? this.phaseSpan(segment) : this.run!;
    const { sessionId, taskKey, purpose, persona, attempt } = started.data;
    recordStoredSpan(taskKey ? `task ${taskKey} attempt ${attempt}` : `${purpose} attempt ${attempt}`, {
      span: derivedContext(phase, `session:${sessionId}`),
      parent: phase,
      startTime: dateOf(timeOf(started)),
      endTime: dateOf(ended.data.at),
      attributes: {
        'headspace.run_id': this.runId,
        'headspace.session_id': sessionId,
        'headspace.persona': persona,
        'headspace.purpose': purpose,
        'headspace.attempt': attempt,
        ...(taskKey ? { 'headspace.task_key': taskKey } : {}),
        'headspace.exit_reason': ended.data.exitReason,
      },
      ...(ended.data.exitReason === 'completed' ? {} : { error: ended.data.outputError ?? ended.data.exitReason }),
    });
  }

  private runEnded(events: RunEvent[], ended: Extract<RunEvent, { type: 'run.completed' | 'run.failed' }>): void {
    const started = events.find((e) => e.type === 'run.started');
    recordStoredSpan(`run ${this.runId}`, {
      span: this.run!,
      startTime: dateOf(started ? timeOf(started) : undefined),
      endTime: dateOf(ended.data.at),
      attributes: {
        'headspace.run_id': this.runId,
        ...(started?.type === 'run.started' ? { 'headspace.team': started.data.team, 'headspace.run_mode': started.data.mode } : {}),
        'headspace.run_outcome': ended.type === 'run.completed' ? ended.data.verdict : 'failed',
      },
      ...(ended.type === 'run.failed' ? { error: ended.data.reason } : {}),
    });
  }

  /** Only called with a run span. */
  private phaseSpan(segment: PhaseSegment): Context {
    return derivedContext(this.run!, phaseKey(segment));
  }
}
