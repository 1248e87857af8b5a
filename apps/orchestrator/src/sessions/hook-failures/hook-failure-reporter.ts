import type { HookEngine, HookOutcome } from '@headspace/agent-runtime';
import { runStreamId, type EventData, type InternalReport, type sessionStarted } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import type { ErrorReporter } from '@headspace/platform';

type Started = EventData<typeof sessionStarted>;

const MAX_RUNS = 1_000;

/** A hook that did not do its job: timed out, could not run, or a command that exited non-zero (2 = the protocol's blocking error). */
export const hookFailed = (o: HookOutcome) => o.result === 'error' || o.result === 'timeout' || (o.exitCode !== undefined && o.exitCode !== 0);

/**
 * Agent hook failures reach Leon as exceptions of the project the session worked on (seed 000
 * §4.6): the origin names the run, session, team, the run's source and the hook; Leon files it
 * under the project whose repository is that source. Besides what the session records itself, and
 * off its path: reporting never delays or fails a hook run.
 */
export class HookFailureReporter {
  private readonly sources = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly reporter: ErrorReporter,
    private readonly store: EventStore,
  ) {}

  /** The engine, its every run's outcomes looked at (async hooks' come through `outcome` from the engine's onAsyncOutcome). */
  watch(engine: HookEngine, session: Started): HookEngine {
    const run = engine.run.bind(engine);
    engine.run = (async (event, payload, hookSession) => {
      const result = await run(event, payload, hookSession);
      for (const outcome of result.outcomes) this.outcome(outcome, session);
      return result;
    }) as HookEngine['run'];
    return engine;
  }

  outcome(outcome: HookOutcome, session: Started): void {
    if (!this.reporter.enabled || !hookFailed(outcome)) return;
    void this.report(outcome, session).catch(() => undefined);
  }

  private async report(o: HookOutcome, session: Started): Promise<void> {
    const source = session.runId ? await this.sourceOf(session.runId) : undefined;
    this.reporter.send(reportOf(o, session), {
      kind: 'hook',
      ...(session.runId ? { runId: session.runId } : {}),
      sessionId: session.sessionId,
      team: session.team,
      ...(source ? { source } : {}),
      hook: { event: o.event, type: o.handler, command: o.label.slice(0, 2_000) || '(unnamed)', ...(o.exitCode !== undefined ? { exitCode: o.exitCode } : {}) },
    });
  }

  /** The run's source, from its `run.started` (read once per run). */
  private sourceOf(runId: string): Promise<string | undefined> {
    let source = this.sources.get(runId);
    if (!source) {
      source = this.store.readStream(runStreamId(runId)).then(
        (events) => (events.find((e) => e.type === 'run.started')?.data as { source?: string } | undefined)?.source,
        () => undefined,
      );
      this.sources.set(runId, source);
      if (this.sources.size > MAX_RUNS) this.sources.delete(this.sources.keys().next().value as string);
    }
    return source;
  }
}

function reportOf(o: HookOutcome, session: Started): InternalReport {
  const blocking = o.exitCode === 2;
  const what = o.result === 'timeout' ? 'timed out' : o.exitCode !== undefined && o.exitCode !== 0 ? `exited with ${o.exitCode}` : 'failed';
  return {
    type: o.result === 'timeout' ? 'HookTimeout' : blocking ? 'HookBlockingError' : 'HookError',
    message: `${o.event} ${o.handler} hook ${JSON.stringify(o.label)} ${what}${o.reason ? `: ${o.reason}` : ''}`.slice(0, 8_192),
    // Exit 2 is the hook protocol's way to block: the hook worked, what it guards did not pass.
    level: blocking ? 'warning' : 'error',
    handled: true,
    tags: { persona: session.persona, hook_scope: o.scope },
  };
}
