import { Inject, Injectable } from '@nestjs/common';
import { askEvents, evalEvents, HeadspaceError, startAsk, type EvalGrade, type EvalTask } from '@headspace/contracts';
import { ConcurrencyError, EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { join } from 'node:path';
import type { AppConfig } from '../config';
import { loadAsk } from '../asks/ask-recorder';
import type { AskState } from '../asks/ask.decider';
import { PassProcessor } from '../runs/pass-processor';
import { GovernorBudgetPort } from '../sessions/ports/governor-budget.adapter';
import { LlmBackendProvider } from '../sessions/ports/llm-backend.provider';
import { LlmModelPort } from '../sessions/ports/llm-model.adapter';
import { nextTask, type EvalRunState } from './eval-run.decider';
import { loadEvalRun, recordEvalRun } from './eval-run-recorder';
import { taskScore } from './eval-score';
import type { CommandGraderRunner } from './graders/command-grader';
import { gradeFile } from './graders/file-grader';
import { RubricJudge } from './graders/rubric-grader';

export const EVAL_COMMAND_GRADER = Symbol('EVAL_COMMAND_GRADER');

/** A task's ask: derived from the run and the task's position, so a repeated start finds the same ask. */
export const evalTaskAskId = (evalRunId: string, index: number) => `${evalRunId}-t${index + 1}`;
const EVAL_ASK_ID = /^(.+)-t\d+$/;

const now = () => new Date().toISOString();

/**
 * Drives eval runs, one task at a time in the suite's order. `eval.run-started` and
 * `eval.task-graded` wake a pass over the run; `ask.completed` / `ask.failed` of a task's ask wake
 * the run it belongs to; the sweep wakes every running run. A pass does what the stream says comes
 * next for the first ungraded task:
 *
 * - not started: start its ask (the ask machinery: a fresh checkout of the workspace, or of the task's
 *   fixture directory, routing by the governor unless the run pins model/effort, one session, cost
 *   recorded) under the derived ask id, then record
 *   `eval.task-started`. A crash between the two starts the same ask again, which is a no-op.
 * - its ask running: nothing (its end wakes the run).
 * - its ask ended: run the graders in the ask's result checkout and record `eval.task-graded`.
 *
 * With every task graded it records `eval.run-completed` with the weighted score.
 */
@Injectable()
export class EvalRunProcess extends PassProcessor {
  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly llm: LlmBackendProvider,
    @Inject(EVAL_COMMAND_GRADER) private readonly commands: CommandGraderRunner,
  ) {
    super(store, { name: 'eval-run-process', types: [...evalEvents, ...askEvents].map((e) => e.type).filter((t) => ['eval.run-started', 'eval.task-graded', 'ask.completed', 'ask.failed'].includes(t)) });
  }

  protected readonly aggregate = 'eval run';
  protected get sweepMs(): number {
    return this.config.RUN_SWEEP_MS;
  }

  protected async handle(events: Array<{ type: string; data: unknown }>): Promise<void> {
    for (const event of events) {
      const { evalRunId, askId } = event.data as { evalRunId?: string; askId?: string };
      if (event.type.startsWith('eval.') && evalRunId) this.trigger(evalRunId);
      const owner = event.type.startsWith('ask.') ? askId?.match(EVAL_ASK_ID)?.[1] : undefined;
      // Not every ask belongs to an eval run: a pass over an unknown run finds no stream and does nothing.
      if (owner) this.trigger(owner);
    }
  }

  protected async activeIds(): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ eval_run_id: string }>(`SELECT eval_run_id FROM ${this.q}.eval_runs WHERE status = 'running' ORDER BY started_at`);
    return rows.map((r) => r.eval_run_id);
  }

  async reconcile(evalRunId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.pass(evalRunId);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private async pass(evalRunId: string): Promise<void> {
    const state = await loadEvalRun(this.store, evalRunId);
    if (this.stopping || state.status !== 'running') return;
    const s = state.started!;
    const task = nextTask(state);
    if (!task) {
      await recordEvalRun(this.store, s.team, { type: 'complete-eval-run', evalRunId, now: now() });
      return;
    }
    const started = state.tasks[task.id];
    if (!started) return this.startTask(state, task);
    const ask = await loadAsk(this.store, started.askId);
    if (ask.status === 'completed' || ask.status === 'failed') await this.grade(state, task, ask);
  }

  private async startTask(state: EvalRunState, task: EvalTask): Promise<void> {
    const s = state.started!;
    const askId = evalTaskAskId(s.evalRunId, s.suite.tasks.indexOf(task));
    let model: string;
    try {
      const reply = await request(
        this.nc,
        startAsk,
        { askId, team: s.team, prompt: task.prompt, workspace: task.fixture ? join(s.workspace, task.fixture) : s.workspace, ...s.config },
        { commandId: `${askId}:start` },
      );
      model = reply.routing.model;
    } catch (error) {
      // A refusal (unknown agent or model, a workspace no longer allowed) fails every task alike: the run fails, naming it.
      if (!(error instanceof HeadspaceError)) throw error;
      await recordEvalRun(this.store, s.team, { type: 'fail-eval-run', evalRunId: s.evalRunId, reason: `Task ${task.id} could not start: ${error.message}`.slice(0, 5_000), now: now() });
      return;
    }
    await recordEvalRun(this.store, s.team, { type: 'start-task', evalRunId: s.evalRunId, taskId: task.id, askId, model, now: now() });
  }

  private async grade(state: EvalRunState, task: EvalTask, ask: AskState): Promise<void> {
    const s = state.started!;
    const askId = state.tasks[task.id]!.askId;
    const grades: EvalGrade[] = [];
    if (ask.status === 'failed' || !ask.completed) {
      const reason = `the task's ask failed: ${ask.failed?.reason ?? 'no result'}`.slice(0, 9_000);
      for (const g of task.graders) grades.push({ type: g.type, weight: g.weight, score: 0, passed: false, detail: reason });
    } else {
      const done = ask.completed;
      for (const [i, grader] of task.graders.entries()) {
        if (this.stopping) return;
        if (grader.type === 'file') grades.push(await gradeFile(grader, done.dir));
        else if (grader.type === 'command') grades.push(await this.commands.grade(grader, { sessionId: `${askId}.grader${i + 1}`, team: s.team, persona: ask.started!.persona, dir: done.dir }));
        else grades.push(await (await this.judge(s.team, s.evalRunId, task.id, askId)).grade(grader, { key: `grader${i + 1}`, prompt: task.prompt, answer: done.result, filesChanged: done.filesChanged }));
      }
    }
    const { score, passed } = taskScore(grades);
    const costUsd = ask.completed?.costUsd ?? ask.failed?.costUsd;
    await recordEvalRun(this.store, s.team, { type: 'grade-task', evalRunId: s.evalRunId, taskId: task.id, askId, grades, score, passed, ...(costUsd ? { costUsd } : {}), now: now() });
  }

  /** A rubric judge on this orchestrator's model backend, its spend attributed to the task's ask (project: the eval run). */
  private async judge(team: string, evalRunId: string, taskId: string, askId: string): Promise<RubricJudge> {
    const backend = await this.llm.get();
    const budget = new GovernorBudgetPort(this.nc, { sessionId: `${askId}.judge`, taskId, persona: 'eval-judge', team, project: evalRunId, surface: 'api' }, 'quick');
    return new RubricJudge(new LlmModelPort(backend.client, undefined, this.llm.priceTable), budget, this.config.HS_HOOK_MODEL);
  }
}
