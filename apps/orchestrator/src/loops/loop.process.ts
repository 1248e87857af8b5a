import { Inject, Injectable } from '@nestjs/common';
import { getPrices, HeadspaceError, loopEvents, reflectionSchema, sessionStreamId, type EventData, type sessionEnded, type sessionModelCalled, type sessionReflected } from '@headspace/contracts';
import { ConcurrencyError, EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { agentSessionStart } from '../agents/agent-snapshot';
import { askCost } from '../asks/ask-cost';
import { PassProcessor } from '../runs/pass-processor';
import { RUN_SESSIONS, RUN_SETTINGS, type RunSessionsPort, type RunSettings } from '../runs/run-ports';
import { currentIteration, type LoopIteration, type LoopState } from './loop.decider';
import type { LoopCheck } from './loop-check';
import { renderLoopContext } from './loop-context';
import { loadLoop, recordLoop } from './loop-recorder';
import type { LoopWorkspace } from './loop-workspace';

export const LOOP_WORKSPACE = Symbol('LOOP_WORKSPACE');
export const LOOP_CHECK = Symbol('LOOP_CHECK');

/** Iteration `n`'s session: `<loopId>.loop.i<n>` (loop ids have no dots, so a session event names its loop). */
export const loopSessionIdFor = (loopId: string, iteration: number) => `${loopId}.loop.i${iteration}`;
export const loopIdOfSession = (sessionId: string): string | undefined => /^([a-z0-9][a-z0-9-]*)\.loop\.i\d+$/.exec(sessionId)?.[1];

/** The simulator's scenario key, and the `Situation:` line a real model reads. */
export const LOOP_SITUATION = 'loop';

const now = () => new Date().toISOString();

/** The first user message of an iteration's session: the task, then the loop-context file as written to the worktree. */
export function loopPrompt(task: string, context: string): string {
  return [
    `Loop task: ${task}`,
    'You are one iteration of a self-improving loop: a fresh agent with a clean context. The loop-context file `.headspace/loop-context.md` in the current directory (a git worktree) holds the goal, what earlier iterations learned and tried, and the last check failure; it is quoted below. Work on the task, do not commit (your work is checkpointed for you), and end with your reflection JSON: put what the next iteration should know in `suggested_learnings`, and set `task_result.status` to `completed` only when the task is done.',
    context,
  ].join('\n\n');
}

/**
 * Drives loops. `loop.*` events and the end of an iteration's session wake a pass, which does what
 * the stream says comes next: at a boundary, check the stop file, write the loop-context file and
 * record the next iteration (`begin-iteration` decides whether the stop file or a stop request
 * halts it); launch the iteration's session unless its stream exists; once it ended, checkpoint
 * the worktree, revert an iteration over the diff limit to the last good checkpoint, run the check
 * and record `end-iteration`, whose decision applies the remaining safety controls. Every step is
 * idempotent, so a pass repeated after a crash resumes at the iteration the stream names.
 */
@Injectable()
export class LoopProcess extends PassProcessor {
  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SETTINGS) private readonly settings: RunSettings,
    @Inject(LOOP_WORKSPACE) private readonly workspace: LoopWorkspace,
    @Inject(LOOP_CHECK) private readonly checks: LoopCheck,
  ) {
    super(store, { name: 'loop-process', types: [...loopEvents.map((e) => e.type), 'session.ended'] });
  }

  /** Only wakes passes: a pass runs git and the check, never inside the checkpoint transaction. */
  protected async handle(events: Array<{ type: string; data: unknown }>): Promise<void> {
    for (const event of events) {
      const data = event.data as { loopId?: string; sessionId?: string };
      const loopId = event.type === 'session.ended' ? loopIdOfSession(String(data.sessionId ?? '')) : data.loopId;
      if (loopId) this.trigger(loopId);
    }
  }

  protected readonly aggregate = 'loop';
  protected get sweepMs(): number {
    return this.settings.sweepMs;
  }

  protected async activeIds(): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ loop_id: string }>(`SELECT loop_id FROM ${this.q}.loops WHERE status = 'running' ORDER BY started_at`);
    return rows.map((r) => r.loop_id);
  }

  async reconcile(loopId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.pass(loopId);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private async pass(loopId: string): Promise<void> {
    let state = await loadLoop(this.store, loopId);
    const s = state.started;
    if (!s || state.status !== 'running' || this.stopping) return;
    let current = currentIteration(state);
    if (!current) {
      state = await this.boundary(state);
      current = currentIteration(state);
      if (!current || state.status !== 'running') return;
    }
    const sessionId = current.started.sessionId;
    const events = await this.store.readStream(sessionStreamId(sessionId));
    if (events.length === 0) {
      const context = renderLoopContext(state, current.started.iteration);
      await this.workspace.writeContext(current.started.worktree, context);
      await this.sessions.start({
        sessionId,
        team: s.team,
        persona: s.persona,
        kind: 'task',
        // The loop stands where a run would: its sessions' events carry it (SSE `run=<loopId>`), its spend is its project.
        runId: loopId,
        model: s.routing.model,
        effort: s.routing.effort,
        ...(s.agentDefinition ? agentSessionStart(s.agentDefinition) : {}),
        prompt: loopPrompt(s.task, context),
        workspace: current.started.worktree,
        situation: LOOP_SITUATION,
      });
      return;
    }
    const ended = events.find((e) => e.type === 'session.ended')?.data as EventData<typeof sessionEnded> | undefined;
    if (!ended) return; // still at work (or resumed by the session supervisor)
    if (ended.exitReason !== 'completed' && ended.exitReason !== 'max_turns') {
      const reason = `Iteration ${current.started.iteration}'s session ended: ${ended.exitReason}${ended.error ? ` (${ended.error})` : ''}`;
      await recordLoop(this.store, s.team, { type: 'fail-loop', loopId, reason: reason.slice(0, 5_000), now: now() });
      return;
    }
    const reflected = events.find((e) => e.type === 'session.reflected')?.data as EventData<typeof sessionReflected> | undefined;
    const calls = events.filter((e) => e.type === 'session.model-called').map((e) => e.data as EventData<typeof sessionModelCalled>);
    await this.endIteration(state, current, ended, reflected, calls);
  }

  /** Between iterations: the stop file is looked for, then the next iteration is recorded (or the loop stopped). */
  private async boundary(state: LoopState): Promise<LoopState> {
    const s = state.started!;
    const iteration = state.iterations.length + 1;
    const checkout = await this.workspace.prepare(s.loopId, s.workspace, s.persona).catch(async (error: Error) => {
      await recordLoop(this.store, s.team, { type: 'fail-loop', loopId: s.loopId, reason: `The workspace could not be prepared: ${error.message}`, now: now() });
      return undefined;
    });
    if (!checkout) return loadLoop(this.store, s.loopId);
    const stopFilePresent = await this.workspace.stopFilePresent(checkout.worktree, s.workspace, s.limits.stopFile);
    const { state: next } = await recordLoop(this.store, s.team, {
      type: 'begin-iteration',
      loopId: s.loopId,
      iteration,
      sessionId: loopSessionIdFor(s.loopId, iteration),
      dir: checkout.dir,
      branch: checkout.branch,
      worktree: checkout.worktree,
      baseCommit: checkout.head,
      stopFilePresent,
      now: now(),
    });
    return next;
  }

  private async endIteration(
    state: LoopState,
    current: LoopIteration,
    ended: EventData<typeof sessionEnded>,
    reflected: EventData<typeof sessionReflected> | undefined,
    calls: Array<EventData<typeof sessionModelCalled>>,
  ): Promise<void> {
    const s = state.started!;
    const { iteration, worktree, baseCommit, sessionId } = current.started;
    const reflection = reflectionSchema.safeParse(reflected?.reflection);
    const summary = (reflection.success ? reflection.data.task_result.summary : ended.summary).slice(0, 5_000);
    const checkpoint = await this.workspace.checkpoint(s.loopId, worktree, iteration, baseCommit, `loop ${s.loopId} iteration ${iteration}: ${summary.split('\n')[0].slice(0, 150)}`);
    const diff = await this.workspace.diff(worktree, baseCommit, checkpoint);
    let check = null;
    if (diff.lines > s.limits.maxDiffLines) await this.workspace.revertTo(worktree, baseCommit);
    else if (s.check) {
      try {
        check = await this.checks.run({ loopId: s.loopId, iteration, team: s.team, persona: s.persona, worktree, command: s.check });
      } catch (error) {
        // A check that cannot run (no sandbox for the team, say) would fail the same way every sweep: the loop fails saying why.
        if (!(error instanceof HeadspaceError)) throw error;
        await recordLoop(this.store, s.team, { type: 'fail-loop', loopId: s.loopId, reason: `The check of iteration ${iteration} could not run: ${error.message}`.slice(0, 5_000), now: now() });
        return;
      }
    }
    const { table } = await request(this.nc, getPrices, {});
    const { costUsd } = askCost(table, calls.map((c) => ({ model: c.model, usage: c.usage, at: c.at })));
    await recordLoop(this.store, s.team, {
      type: 'end-iteration',
      loopId: s.loopId,
      iteration,
      sessionId,
      agentStatus: reflection.success ? reflection.data.task_result.status : 'none',
      summary,
      checkpoint,
      diffLines: diff.lines,
      filesChanged: diff.files.slice(0, 1_000),
      check,
      learnings: reflection.success ? reflection.data.suggested_learnings.map((l) => l.content).slice(0, 50) : [],
      ...(costUsd ? { costUsd } : {}),
      now: now(),
    });
  }
}
