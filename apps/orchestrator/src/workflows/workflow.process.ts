import { Inject, Injectable } from '@nestjs/common';
import { askEvents, HeadspaceError, startAsk, workflowEvents, type WorkflowStep } from '@headspace/contracts';
import { ConcurrencyError, EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { loadAsk } from '../asks/ask-recorder';
import { PassProcessor } from '../runs/pass-processor';
import { RUN_SETTINGS, type RunSettings } from '../runs/run-ports';
import { planWorkflow } from './workflow-plan';
import { loadWorkflow, recordWorkflow } from './workflow-recorder';
import { workflowAskId, workflowIdOfAsk, type WorkflowState } from './workflow.decider';

const now = () => new Date().toISOString();

/**
 * Drives workflows. `workflow.*` events and the end of a step's ask (`ask.completed`/`ask.failed`,
 * whose ask id names the workflow) wake a pass, which does what the stream says comes next:
 *
 * 1. every running attempt: start its ask if the ask's stream is empty (the attempt is recorded
 *    before the ask is started, under a deterministic ask id, so a crash in between starts the same
 *    ask, once); once the ask ended, record `workflow.step-ended` with its result or failure;
 * 2. the plan (workflow-plan.ts, pure): record the steps that will never run, record and start the
 *    attempts that may start within the concurrency, and end the workflow once every step is done.
 *
 * A finished step is never run again: its end is in the stream and the plan reads it. The sweep
 * (at start and every RUN_SWEEP_MS) picks up running workflows whose wake-up was lost.
 */
@Injectable()
export class WorkflowProcess extends PassProcessor {
  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SETTINGS) private readonly settings: RunSettings,
  ) {
    super(store, { name: 'workflow-process', types: [...workflowEvents.map((e) => e.type), ...askEvents.filter((e) => e.type !== 'ask.session-started').map((e) => e.type)] });
  }

  protected async handle(events: Array<{ type: string; data: unknown }>): Promise<void> {
    for (const event of events) {
      const data = event.data as { workflowId?: string; askId?: string };
      const workflowId = event.type.startsWith('ask.') ? workflowIdOfAsk(String(data.askId ?? '')) : data.workflowId;
      if (workflowId) this.trigger(workflowId);
    }
  }

  protected readonly aggregate = 'workflow';
  protected get sweepMs(): number {
    return this.settings.sweepMs;
  }

  protected async activeIds(): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ workflow_id: string }>(`SELECT workflow_id FROM ${this.q}.workflows WHERE status = 'running' ORDER BY started_at`);
    return rows.map((r) => r.workflow_id);
  }

  async reconcile(workflowId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.pass(workflowId);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private async pass(workflowId: string): Promise<void> {
    let state = await loadWorkflow(this.store, workflowId);
    if (!state.started || state.status !== 'running' || this.stopping) return;
    state = await this.settleRunning(state);
    // Skipping a step can make its dependants ready: plan again until nothing changes.
    for (let round = 0; round <= state.started!.steps.length && state.status === 'running' && !this.stopping; round++) {
      const plan = planWorkflow(state);
      const team = state.started!.team;
      for (const end of plan.ends) state = (await recordWorkflow(this.store, team, { type: 'end-step', workflowId, stepId: end.stepId, attempt: 0, status: end.status, reason: end.reason, now: now() })).state;
      for (const start of plan.starts) {
        state = (await recordWorkflow(this.store, team, { type: 'start-step', workflowId, ...start, askId: workflowAskId(workflowId, start.stepId, start.attempt), now: now() })).state;
      }
      if (plan.starts.length > 0) state = await this.settleRunning(state);
      if (plan.end) state = (await recordWorkflow(this.store, team, { type: 'end-workflow', workflowId, ...plan.end, now: now() })).state;
      if (plan.ends.length === 0) break;
    }
  }

  /** Starts the ask of every running attempt that has none yet, and records the end of those whose ask ended. */
  private async settleRunning(given: WorkflowState): Promise<WorkflowState> {
    let state = given;
    const s = state.started!;
    for (const step of s.steps) {
      const current = state.steps[step.id]?.current;
      if (!current || this.stopping) continue;
      const ask = await loadAsk(this.store, current.askId);
      const base = { type: 'end-step' as const, workflowId: s.workflowId, stepId: step.id, attempt: current.attempt, now: now() };
      if (ask.status === 'none') {
        const refused = await this.startAsk(s.team, s.workspace, step, current.askId, current.prompt);
        if (refused) state = (await recordWorkflow(this.store, s.team, { ...base, status: 'failed', reason: refused })).state;
      } else if (ask.status === 'completed') {
        const c = ask.completed!;
        state = (await recordWorkflow(this.store, s.team, { ...base, status: 'succeeded', output: c.result, costUsd: c.costUsd })).state;
      } else if (ask.status === 'failed') {
        const f = ask.failed!;
        state = (await recordWorkflow(this.store, s.team, { ...base, status: 'failed', reason: f.reason, ...(f.costUsd ? { costUsd: f.costUsd } : {}) })).state;
      }
    }
    return state;
  }

  /** Starts the attempt's ask (idempotent by its ask id); a refusal (bad agent, model, workspace) is the attempt's failure. */
  private async startAsk(team: string, workspace: string, step: WorkflowStep, askId: string, prompt: string): Promise<string | undefined> {
    try {
      await request(
        this.nc,
        startAsk,
        { askId, team, prompt, workspace, ...(step.agent ? { agent: step.agent } : {}), ...(step.model ? { model: step.model } : {}), ...(step.effort ? { effort: step.effort } : {}) },
        { commandId: `${askId}:start`, timeoutMs: 30_000 },
      );
      return undefined;
    } catch (error) {
      if (error instanceof HeadspaceError && error.field) return `The ask was refused (${error.field}): ${error.message}`.slice(0, 5_000);
      throw error;
    }
  }
}
