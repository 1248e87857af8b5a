import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { quoteIdent, ConcurrencyError, EventStore, ProcessorRunner } from '@headspace/event-store';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import { withSpan } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { RunWorkspace } from '../workspace/run-workspace';
import { runIdOfSession, nextActions, type RunAction } from './run-planner';
import { parsePhaseOutput } from './run-output';
import { promptFor, sessionKindOf, situationOf } from './run-prompts';
import { RUN_SESSIONS, RUN_SETTINGS, type RunSessionsPort, type RunSettings } from './run-ports';
import { RunRecorder } from './run-recorder';
import { TeamMirror, teamTaskId } from './team-mirror';
import type { RunSessionState, RunState, SessionPurpose } from './run.decider';

/** Model per kind of work; the cost governor may still route a call one tier down under budget pressure. */
const MODEL_FOR: Record<SessionPurpose, { model: string; effort: 'quick' | 'standard' | 'deep' }> = {
  workshop: { model: 'opus', effort: 'deep' },
  review: { model: 'opus', effort: 'standard' },
  decompose: { model: 'sonnet', effort: 'standard' },
  task: { model: 'sonnet', effort: 'standard' },
  qa: { model: 'sonnet', effort: 'standard' },
};

const MAX_STEPS_PER_PASS = 100;

/**
 * Drives every run forward, level-triggered: `reconcile(runId)` reads the run, records the outcome
 * of any of its sessions that ended, and performs what the pure planner says comes next — prepare
 * the workspace, start sessions, merge finished work, complete. Every action is idempotent, so it
 * does not matter how often or after what crash a run is reconciled: on start, on a timer, and
 * whenever one of its sessions ends (a processor over `session.ended` events) or an operator
 * answers. One pass per run at a time in this instance; a second instance racing on the same run
 * loses at the run stream's version check and tries again.
 */
@Injectable()
export class RunReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunReconciler.name);
  private readonly mirror: TeamMirror;
  private readonly passes = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Sessions this instance has made sure are running (a crash may have come between recording and starting one). */
  private readonly ensured = new Set<string>();
  private readonly sessionEnds: ProcessorRunner;
  private sweepTimer?: NodeJS.Timeout;
  private stopping = false;
  private readonly q: string;

  constructor(
    private readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SETTINGS) private readonly settings: RunSettings,
  ) {
    this.q = quoteIdent(schema);
    this.mirror = new TeamMirror(nc);
    this.sessionEnds = new ProcessorRunner({
      pool,
      schema,
      name: 'run-session-ends',
      types: ['session.ended'],
      handle: async (events) => {
        for (const event of events) {
          const runId = runIdOfSession(String((event.data as { sessionId?: string }).sessionId ?? ''));
          if (runId) this.trigger(runId);
        }
      },
      onError: (error) => this.logger.warn(`run session ends: ${(error as Error).message}`),
    });
  }

  onApplicationBootstrap(): void {
    this.sessionEnds.start();
    const sweep = () => {
      void this.sweep()
        .catch((error) => this.logger.warn(`run sweep: ${(error as Error).message}`))
        .finally(() => {
          if (this.stopping) return;
          this.sweepTimer = setTimeout(sweep, this.settings.sweepMs);
          this.sweepTimer.unref();
        });
    };
    sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.sweepTimer);
    await this.sessionEnds.stop();
    await Promise.allSettled([...this.passes.values()]);
  }

  /** Reconciles every active run (the runs projection lists them). */
  async sweep(): Promise<void> {
    const { rows } = await this.pool.query<{ run_id: string }>(`SELECT run_id FROM ${this.q}.runs WHERE ended_at IS NULL ORDER BY started_at`);
    for (const { run_id } of rows) this.trigger(run_id);
  }

  /** Asks for a pass over the run; passes over one run never overlap, and a request during a pass gets one more. */
  trigger(runId: string): void {
    if (this.stopping) return;
    if (this.passes.has(runId)) {
      this.again.add(runId);
      return;
    }
    const pass = this.reconcile(runId)
      .catch((error) => this.logger.error(`run ${runId}: ${(error as Error).message}`))
      .finally(() => {
        this.passes.delete(runId);
        if (this.again.delete(runId)) this.trigger(runId);
      });
    this.passes.set(runId, pass);
  }

  /** Resolves when no pass is running or queued for the run (tests and the CLI use it). */
  async settled(runId: string): Promise<void> {
    while (this.passes.has(runId)) await this.passes.get(runId);
  }

  async reconcile(runId: string): Promise<void> {
    await withSpan('reconcile run', { attributes: { 'headspace.run_id': runId } }, async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          return await this.pass(runId);
        } catch (error) {
          if (!(error instanceof ConcurrencyError)) throw error;
        }
      }
    });
  }

  private async pass(runId: string): Promise<void> {
    const run = await RunRecorder.load(this.store, runId);
    for (let step = 0; step < MAX_STEPS_PER_PASS && !this.stopping; step++) {
      const recorded = await this.recordEndedSessions(run);
      const actions = nextActions(run.state);
      if (actions.length === 0 && !recorded) return;
      for (const action of actions) await this.perform(run, action);
    }
  }

  private async recordEndedSessions(run: RunRecorder): Promise<boolean> {
    let recorded = false;
    for (const session of Object.values(run.state.sessions).filter((s) => !s.ended)) {
      const outcome = await this.sessions.outcome(session.sessionId);
      if (!outcome) {
        if (!this.ensured.has(session.sessionId)) await this.startSession(run, session);
        continue;
      }
      const output = parsePhaseOutput(session.purpose, outcome.reflection);
      const now = new Date().toISOString();
      const events = await run.record({ type: 'record-session-outcome', runId: run.runId, sessionId: session.sessionId, exitReason: outcome.exitReason, summary: outcome.summary, output, files: outcome.filesModified, now });
      recorded ||= events.length > 0;
    }
    return recorded;
  }

  private async perform(run: RunRecorder, action: RunAction): Promise<void> {
    const state = run.state;
    const runId = run.runId;
    const now = new Date().toISOString();
    switch (action.type) {
      case 'prepare-workspace': {
        await this.mirror.ensureTeam(state);
        const ws = await this.workspace(state);
        await run.record({ type: 'record-workspace', runId, dir: ws.dir, branch: ws.branch, baseCommit: await ws.head(), now });
        return;
      }
      case 'start-session': {
        await run.record({ type: 'start-session', runId, sessionId: action.sessionId, purpose: action.purpose, persona: action.persona, attempt: action.attempt, ...(action.taskKey ? { taskKey: action.taskKey } : {}), ...(action.round ? { round: action.round } : {}), now });
        if (action.taskKey) await this.mirror.claim(run.state, action.taskKey, action.persona, action.attempt);
        await this.startSession(run, run.state.sessions[action.sessionId]);
        return;
      }
      case 'merge': {
        const ws = await this.workspace(state);
        const subject = state.tasks[action.taskKey]?.task.subject ?? `QA tests (${action.taskKey})`;
        const result = await ws.mergeTask(action.persona, { id: action.taskKey, subject });
        await run.record({ type: 'record-merge', runId, taskKey: action.taskKey, result, now });
        if (result.status !== 'conflict' && state.tasks[action.taskKey]) await this.mirror.complete(run.state, action.taskKey);
        return;
      }
      case 'answer-escalation':
        await run.record({ type: 'answer-escalation', runId, escalationId: action.escalationId, answer: action.answer, by: action.by, now });
        return;
      case 'complete': {
        const ws = await this.workspace(state);
        await run.record({ type: 'complete-run', runId, headCommit: await ws.head(), now });
        return;
      }
      case 'fail':
        await run.record({ type: 'fail-run', runId, reason: action.reason, now });
        return;
    }
  }

  /** Starts a recorded run session (idempotent: the supervisor runs an existing session at most once). */
  private async startSession(run: RunRecorder, session: RunSessionState): Promise<void> {
    const state = run.state;
    const ws = await this.workspace(state);
    await this.sessions.start({
      sessionId: session.sessionId,
      team: state.started!.team,
      persona: session.persona,
      kind: sessionKindOf[session.purpose],
      runId: run.runId,
      ...(session.taskKey ? { taskId: teamTaskId(run.runId, session.taskKey) } : {}),
      ...MODEL_FOR[session.purpose],
      prompt: promptFor(state, session.purpose, session.taskKey, session.round),
      workspace: await ws.worktreeFor(session.persona),
      situation: situationOf[session.purpose],
    });
    this.ensured.add(session.sessionId);
  }

  private workspace(state: RunState): Promise<RunWorkspace> {
    return RunWorkspace.prepare({ runId: state.started!.runId, source: state.started!.source, root: this.settings.workspacesDir });
  }
}
