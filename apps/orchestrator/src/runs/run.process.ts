import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, routeModel, runEvents, sessionStreamId, type SessionRouting } from '@headspace/contracts';
import { ConcurrencyError, EventStore, type RecordedEvent } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import { inContext, withSpan } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import { agentSessionStart } from '../agents/agent-snapshot';
import { PassProcessor } from './pass-processor';
import { PersonaPool } from './persona-pool';
import { PlanApproval } from './plan-approval';
import { PROJECT_MEMORY_DIR, projectMemoryCommitMessage, writeProjectMemory } from './project-memory';
import { parsePhaseOutput, type PhaseOutput } from './run-output';
import { nextActions, runIdOfSession, type RunAction } from './run-planner';
import { RUN_CHECKS, RUN_SESSIONS, RUN_SETTINGS, RUN_WORKSPACE, type RegressionCheckPort, type RunSessionsPort, type RunSettings, type RunWorkspacePort } from './run-ports';
import { promptFor, sessionKindOf, situationOf } from './run-prompts';
import { RunRecorder } from './run-recorder';
import { readSessionOutcome } from './session-outcomes';
import { unresolvedAsConflict } from './merge-outcome';
import { TeamBoard } from './team-board';
import { fallbackRouting, MODEL_FOR, routedSession, sessionRouteRequest, usesRunAgent } from './session-routing';
import { regressionKeyOf, type RegressionCheck, type RunSessionState, type RunState } from './run.state';

const MAX_STEPS_PER_PASS = 200;
const now = () => new Date().toISOString();

/**
 * The run's process manager. Run events and the end of its sessions (`session.ended`) reach it
 * through a processor of the event store; each wakes a pass over that run. A pass is
 * level-triggered: it loads the run, records what its ended sessions produced (read from their
 * own streams), and performs what the pure planner says comes next — take personas from the
 * team-manager's pools, start sessions, put tasks on the team's task list, merge finished work,
 * release personas, complete. Every step has a deterministic id (session ids from run, task and
 * attempt; command ids from the step), so a pass repeated after a crash does nothing twice. The
 * processor's lease makes one instance the driver; its sweep (on start and every `sweepMs`) picks
 * up runs whose wake-up was lost in a crash and persona requests that waited in a queue.
 */
@Injectable()
export class RunProcess extends PassProcessor {
  private readonly personas: PersonaPool;
  private readonly board: TeamBoard;
  private readonly approvals: PlanApproval;
  /** Queued persona requests → their run, to wake it when a release lets them through. */
  private readonly waiting = new Map<string, string>();
  private readonly prepared = new Set<string>();
  /** Stops regression checks in flight on shutdown (they run again on resume). */
  private readonly stopped = new AbortController();

  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_WORKSPACE) private readonly workspace: RunWorkspacePort,
    @Inject(RUN_SETTINGS) private readonly settings: RunSettings,
    @Inject(RUN_CHECKS) private readonly checks: RegressionCheckPort,
  ) {
    super(store, { name: 'run-process', types: [...runEvents.map((e) => e.type), 'session.ended'] });
    this.personas = new PersonaPool(nc);
    this.board = new TeamBoard(nc, settings.taskLeaseMs);
    this.approvals = new PlanApproval(nc);
  }

  /** Only wakes passes: a pass calls other services and must not hold the checkpoint transaction open. */
  protected async handle(events: RecordedEvent[]): Promise<void> {
    for (const event of events) {
      const data = event.data as { runId?: string; sessionId?: string };
      const runId = event.type === 'session.ended' ? runIdOfSession(String(data.sessionId ?? '')) : data.runId;
      if (runId) this.trigger(runId);
    }
  }

  protected readonly aggregate = 'run';
  protected get sweepMs(): number {
    return this.settings.sweepMs;
  }

  override async beforeApplicationShutdown(): Promise<void> {
    this.stopped.abort();
    await super.beforeApplicationShutdown();
  }

  /** Runs that are active or still hold personas (the runs projection lists them). */
  protected async activeIds(): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ run_id: string }>(`SELECT run_id FROM ${this.q}.runs WHERE ended_at IS NULL OR leases_held > 0 ORDER BY started_at`);
    return rows.map((r) => r.run_id);
  }

  async reconcile(runId: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const run = await RunRecorder.load(this.store, runId);
      try {
        // A pass belongs to the phase the run is in: its trace is the run's, whichever process drives it (ADR 0028).
        return await inContext(run.spans.phase(run.events), () => withSpan('run pass', { attributes: { 'headspace.run_id': runId, 'headspace.phase': run.state.phase } }, () => this.pass(run)));
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private async pass(run: RunRecorder): Promise<void> {
    for (let step = 0; step < MAX_STEPS_PER_PASS && !this.stopping; step++) {
      const before = run.streamVersion;
      await this.recordEndedSessions(run);
      for (const action of nextActions(run.state)) {
        if (this.stopping) return;
        await this.perform(run, action);
      }
      // Nothing new recorded: the run waits (on a session, the operator, a queued persona).
      if (run.streamVersion === before) return;
    }
  }

  private async recordEndedSessions(run: RunRecorder): Promise<void> {
    for (const session of Object.values(run.state.sessions).filter((s) => !s.ended)) {
      const { started, outcome } = await readSessionOutcome(this.store, session.sessionId);
      if (!started && run.state.status === 'active') {
        await this.launch(run, session); // recorded, then a crash before it was launched
        continue;
      }
      if (!started) {
        // The run ended before the session could be launched: close it so its persona goes back.
        await run.record({ type: 'record-session-outcome', runId: run.runId, sessionId: session.sessionId, exitReason: 'cancelled', summary: 'Not started: the run had ended', output: { kind: 'invalid', error: 'not started' }, files: [], now: now() });
        continue;
      }
      if (!outcome) {
        if (session.taskKey && run.state.status === 'active') await this.board.renew(run.state, session);
        continue;
      }
      this.board.ended(session.sessionId);
      const output = parsePhaseOutput(session.purpose, outcome.reflection);
      const approvalId = await this.approvalFor(run.state, session, output);
      const teamTaskId = session.taskKey ? run.state.tasks[session.taskKey]?.teamTaskId : undefined;
      const gaveBack = outcome.gaveBack.find((g) => g.taskId === teamTaskId);
      await run.record({
        type: 'record-session-outcome',
        runId: run.runId,
        sessionId: session.sessionId,
        exitReason: outcome.exitReason,
        summary: outcome.summary,
        output,
        files: outcome.filesModified,
        ...(approvalId ? { approvalId } : {}),
        ...(gaveBack ? { gaveBack: { reason: gaveBack.reason } } : {}),
        now: now(),
      });
    }
  }

  /** v2 with a human operator: Gavin's tasks wait on a plan-approval in the team-manager's queue. */
  private async approvalFor(state: RunState, session: RunSessionState, output: PhaseOutput): Promise<string | undefined> {
    const s = state.started!;
    if (state.status !== 'active' || session.purpose !== 'decompose' || output.kind !== 'tasks' || s.mode !== 'v2' || s.operator !== 'interactive') return undefined;
    return this.approvals.request(state, session.sessionId, session.persona, output.tasks);
  }

  private async perform(run: RunRecorder, action: RunAction): Promise<void> {
    const runId = run.runId;
    switch (action.type) {
      case 'prepare-workspace': {
        await this.board.ensureTeam(run.state);
        const ws = await this.workspace.prepare(runId, run.state.started!.source);
        this.prepared.add(runId);
        await run.record({ type: 'record-workspace', runId, ...ws, now: now() });
        return;
      }
      case 'release-persona': {
        const granted = await this.personas.release(runId, action.sessionId, action.leaseId);
        await run.record({ type: 'record-persona-released', runId, sessionId: action.sessionId, now: now() });
        for (const requestId of granted) {
          const other = this.waiting.get(requestId);
          if (other && other !== runId) this.trigger(other);
        }
        return;
      }
      case 'create-team-tasks': {
        const tasks = await this.board.createTasks(run.state, action.keys);
        await run.record({ type: 'record-tasks-created', runId, team: run.state.started!.team, tasks, now: now() });
        return;
      }
      case 'start-session':
        return this.startSession(run, action);
      case 'check-approval': {
        const decided = await this.approvals.decision(action.approvalId);
        if (!decided) return;
        if (decided.decision === 'approve') await run.record({ type: 'approve-tasks', runId, by: decided.by, now: now() });
        else await run.record({ type: 'reject-tasks', runId, by: decided.by, reason: decided.reason ?? 'The plan was not approved', now: now() });
        return;
      }
      case 'merge':
        return this.merge(run, action.taskKey, action.persona);
      case 'regression-check':
        return this.regressionCheck(run, action.stage);
      case 'answer-escalation':
        await run.record({ type: 'answer-escalation', runId, escalationId: action.escalationId, answer: action.answer, by: action.by, now: now() });
        return;
      case 'complete':
        await this.ensureWorkspace(run.state);
        // The team's protocol files (learnings, decisions, the retro) go into the result branch with the work.
        await this.workspace.commitFiles(runId, projectMemoryCommitMessage(runId), [PROJECT_MEMORY_DIR], (dir) => writeProjectMemory(this.store, run.state, dir).then(() => undefined));
        await run.record({ type: 'complete-run', runId, headCommit: await this.workspace.head(runId), now: now() });
        return;
      case 'fail':
        await run.record({ type: 'fail-run', runId, reason: action.reason, now: now() });
        return;
    }
  }

  private async startSession(run: RunRecorder, action: Extract<RunAction, { type: 'start-session' }>): Promise<void> {
    const { runId } = run;
    const taskId = action.taskKey ? run.state.tasks[action.taskKey]?.teamTaskId : undefined;
    let grant;
    try {
      grant = await this.personas.acquire(runId, action.sessionId, action.pool, { ...(taskId ? { taskId } : {}), ...(action.affinity ? { affinity: action.affinity } : {}) });
    } catch (error) {
      if (!(error instanceof HeadspaceError && error.code === ErrorCodes.poolNotFound)) throw error;
      await run.record({ type: 'fail-run', runId, reason: `No persona pool "${action.pool}" in the team-manager for ${action.taskKey ?? action.purpose}`, now: now() });
      return;
    }
    if (grant.status === 'queued') {
      this.waiting.set(grant.requestId, runId);
      const { sessionId, purpose, taskKey, pool } = action;
      await run.record({ type: 'record-persona-queued', runId, sessionId, purpose, ...(taskKey ? { taskKey } : {}), pool, requestId: grant.requestId, position: grant.position, now: now() });
      return;
    }
    this.waiting.delete(grant.requestId);
    await this.ensureWorkspace(run.state);
    const worktree = await this.workspace.worktreeFor(runId, grant.personaId);
    const { type: _t, affinity, ...rest } = action;
    // Routed once, recorded with the start: a launch resumed after a crash reads the model from the stream.
    const routing = await this.route(run.state, action);
    const agent = usesRunAgent(run.state, action) ? run.state.started!.agent!.name : undefined;
    await run.record({ ...rest, type: 'start-session', runId, persona: grant.personaId, leaseId: grant.leaseId, affinity: affinity === grant.personaId, worktree, routing, ...(agent ? { agent } : {}), now: now() });
    const session = run.state.sessions[action.sessionId];
    if (session?.leaseId !== grant.leaseId) {
      await this.personas.release(runId, action.sessionId, grant.leaseId); // the run ended meanwhile
      return;
    }
    await this.launch(run, session, worktree);
  }

  /**
   * The session's model and effort: the cost governor's routing of its signals (with the
   * operator's or the run agent's pins, when there are any); the purpose's default when the
   * governor does not answer — said so in the record.
   */
  private async route(state: RunState, action: Extract<RunAction, { type: 'start-session' }>): Promise<SessionRouting> {
    const req = sessionRouteRequest(state, action);
    try {
      const decision = await request(this.nc, routeModel, { signals: req.signals, ...(req.model ? { model: req.model } : {}), ...(req.effort ? { effort: req.effort } : {}) });
      return routedSession(decision, req);
    } catch (error) {
      if (!(error instanceof HeadspaceError)) throw error;
      return fallbackRouting(action.purpose, req, error.code);
    }
  }

  /**
   * Claims the task on the persona's behalf and starts the session, unless its stream shows it
   * started already. `worktree`: the path just made ready for it (a resumed launch asks again).
   */
  private async launch(run: RunRecorder, session: RunSessionState, worktree?: string): Promise<void> {
    if ((await this.store.streamVersion(sessionStreamId(session.sessionId))) !== null) return;
    // The session's start (and so the session) is recorded in its attempt's span.
    await inContext(run.spans.attempt(run.events, session.sessionId), () => this.launchSession(run, session, worktree));
  }

  private async launchSession(run: RunRecorder, session: RunSessionState, worktree?: string): Promise<void> {
    const state = run.state;
    if (session.taskKey) await this.board.claim(state, session.taskKey, session.persona, session.attempt, session.sessionId);
    await this.ensureWorkspace(state);
    await this.sessions.start({
      sessionId: session.sessionId,
      team: state.started!.team,
      persona: session.persona,
      // A fix run's regression task is QA work: Verner's tools write tests, never the code under test.
      kind: session.taskKey !== undefined && session.taskKey === regressionKeyOf(state) ? 'qa' : sessionKindOf[session.purpose],
      runId: run.runId,
      ...(session.taskKey && state.tasks[session.taskKey]?.teamTaskId ? { taskId: state.tasks[session.taskKey].teamTaskId } : {}),
      // As recorded; a session recorded before routing runs on its purpose's default.
      model: session.routing?.model ?? MODEL_FOR[session.purpose].model,
      effort: session.routing?.effort ?? MODEL_FOR[session.purpose].effort,
      // The run's custom agent as recorded at run start: its prompt, turn limit and allow-list.
      ...(session.agent && state.started!.agent ? agentSessionStart(state.started!.agent) : {}),
      prompt: promptFor(state, session.purpose, session.taskKey, session.round, session.escalationId, session.persona),
      workspace: worktree ?? (await this.workspace.worktreeFor(run.runId, session.persona)),
      situation: situationOf[session.purpose],
      ...(state.started!.runtime ? { runtime: state.started!.runtime } : {}),
    });
  }

  private async merge(run: RunRecorder, key: string, persona: string): Promise<void> {
    const state = run.state;
    await this.ensureWorkspace(state);
    const task = state.tasks[key];
    const subject = task?.task.subject ?? `QA tests (${key})`;
    // mergeTask commits the persona's worktree first.
    const result = await this.workspace.mergeTask(run.runId, persona, { id: key, subject }).catch(unresolvedAsConflict);
    await run.record({ type: 'record-merge', runId: run.runId, taskKey: key, result, now: now() });
    if (!task) return;
    const note = result.status === 'conflict' ? `Merge conflicted in ${result.files.join(', ')}; conflict task C-${key} brings it in` : (task.summary ?? '');
    await this.board.complete(run.state, key, note);
  }

  /**
   * A fix run's check of its test command at the run branch head. A crash while it runs leaves
   * nothing recorded: the next pass finds it still due and runs it again.
   */
  private async regressionCheck(run: RunRecorder, stage: RegressionCheck['stage']): Promise<void> {
    const state = run.state;
    const { team, fix } = state.started!;
    const regression = state.tasks[fix!.regressionTaskKey];
    await this.ensureWorkspace(state);
    const commit = await this.workspace.head(run.runId);
    const name = `${stage}-${state.regressionChecks.filter((c) => c.stage === stage).length + 1}`;
    const result = await this.checks.run({ runId: run.runId, team, persona: regression.persona ?? 'verner', commit, command: fix!.testCommand, name }, this.stopped.signal);
    const testFiles = regression.mergedFiles?.length ? regression.mergedFiles : regression.files;
    await run.record({ type: 'record-regression-check', runId: run.runId, stage, commit, command: fix!.testCommand, ...result, testFiles, now: now() });
  }

  /** The workspace port keeps runs it has opened; after a restart each run is reopened once. */
  private async ensureWorkspace(state: RunState): Promise<void> {
    const runId = state.started!.runId;
    if (this.prepared.has(runId)) return;
    await this.workspace.prepare(runId, state.started!.source);
    this.prepared.add(runId);
  }
}
