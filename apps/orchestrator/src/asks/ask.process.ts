import { Inject, Injectable } from '@nestjs/common';
import { askEvents, getPrices, sessionStreamId, type EventData, type sessionEnded, type sessionModelCalled } from '@headspace/contracts';
import { ConcurrencyError, EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { agentSessionStart } from '../agents/agent-snapshot';
import { PassProcessor } from '../runs/pass-processor';
import { RUN_SESSIONS, RUN_SETTINGS, type RunSessionsPort, type RunSettings } from '../runs/run-ports';
import { askCost, type AskModelCall } from './ask-cost';
import { loadAsk, recordAsk } from './ask-recorder';
import type { AskState } from './ask.decider';
import { AskWorkspace } from './ask-workspace';

export const ASK_WORKSPACE = Symbol('ASK_WORKSPACE');

/** The one session of an ask: `<askId>.ask.a1` (ask ids have no dots, so a session event names its ask). */
export const askSessionIdFor = (askId: string) => `${askId}.ask.a1`;
export const askIdOfSession = (sessionId: string): string | undefined => /^([a-z0-9][a-z0-9-]*)\.ask\.a\d+$/.exec(sessionId)?.[1];

/** The simulator's scenario key, and the `Situation:` line a real model reads. */
export const ASK_SITUATION = 'ask';

const now = () => new Date().toISOString();

export function askPrompt(prompt: string, workspace: string): string {
  return [
    `Request: ${prompt}`,
    `You work alone on this request, in the current directory: a git worktree of ${workspace}. Make the change the request asks for (or answer it, if it asks a question), keep it to what was asked, and do not commit: your work is committed and merged for you when you finish.`,
    'When you are done, say in a few sentences what you did, then end with your reflection JSON (as the reflection protocol says), listing the files you changed in `task_result.files_changed`.',
  ].join('\n\n');
}

/**
 * Drives asks: `ask.started` and the end of an ask's session (`session.ended`) wake a pass over
 * the ask, which does what its stream says comes next — make the checkout and record the session
 * (`ask.session-started`), launch the session unless its stream exists, and once it has ended merge
 * its work, price its model calls and record `ask.completed` or `ask.failed`. Every step is
 * idempotent (command ids name the step, the workspace reopens, the session is launched only
 * when its stream is empty), so a pass repeated after a crash does nothing twice; the session
 * itself resumes under the session supervisor. The sweep (at start and every `sweepMs`) picks up
 * running asks whose wake-up was lost.
 */
@Injectable()
export class AskProcess extends PassProcessor {

  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(RUN_SESSIONS) private readonly sessions: RunSessionsPort,
    @Inject(RUN_SETTINGS) private readonly settings: RunSettings,
    @Inject(ASK_WORKSPACE) private readonly workspace: AskWorkspace,
  ) {
    super(store, { name: 'ask-process', types: [...askEvents.map((e) => e.type), 'session.ended'] });
  }

  /** Only wakes passes: a pass runs git and calls other services, never inside the checkpoint transaction. */
  protected async handle(events: Array<{ type: string; data: unknown }>): Promise<void> {
    for (const event of events) {
      const data = event.data as { askId?: string; sessionId?: string };
      const askId = event.type === 'session.ended' ? askIdOfSession(String(data.sessionId ?? '')) : data.askId;
      if (askId) this.trigger(askId);
    }
  }

  protected readonly aggregate = 'ask';
  protected get sweepMs(): number {
    return this.settings.sweepMs;
  }

  /** Running asks (the asks projection lists them). */
  protected async activeIds(): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ ask_id: string }>(`SELECT ask_id FROM ${this.q}.asks WHERE status = 'running' ORDER BY started_at`);
    return rows.map((r) => r.ask_id);
  }

  async reconcile(askId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.pass(askId);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private async pass(askId: string): Promise<void> {
    let state = await loadAsk(this.store, askId);
    const s = state.started;
    if (!s || state.status !== 'running' || this.stopping) return;
    if (!state.session) {
      const checkout = await this.workspace.prepare(askId, s.workspace, s.persona).catch(async (error: Error) => {
        await recordAsk(this.store, s.team, { type: 'fail-ask', askId, reason: `The workspace could not be prepared: ${error.message}`, now: now() });
        return undefined;
      });
      if (!checkout) return;
      state = (await recordAsk(this.store, s.team, { type: 'record-session-started', askId, sessionId: askSessionIdFor(askId), persona: s.persona, ...checkout, now: now() })).state;
    }
    const session = state.session!;
    const events = await this.store.readStream(sessionStreamId(session.sessionId));
    if (events.length === 0) {
      await this.sessions.start({
        sessionId: session.sessionId,
        team: s.team,
        persona: s.persona,
        kind: 'task',
        // The ask stands where a run would: its sessions' events carry it (SSE `run=<askId>`), its spend is its project.
        runId: askId,
        model: s.routing.model,
        effort: s.routing.effort,
        // A custom agent as recorded when the ask started: its prompt, turn limit and allow-list.
        ...(s.agentDefinition ? agentSessionStart(s.agentDefinition) : {}),
        prompt: askPrompt(s.prompt, s.workspace),
        workspace: session.worktree,
        situation: ASK_SITUATION,
      });
      return;
    }
    const ended = events.find((e) => e.type === 'session.ended')?.data as EventData<typeof sessionEnded> | undefined;
    if (!ended) return; // still running (or resumed by the session supervisor)
    await this.finish(state, ended, events.filter((e) => e.type === 'session.model-called').map((e) => e.data as EventData<typeof sessionModelCalled>));
  }

  private async finish(state: AskState, ended: EventData<typeof sessionEnded>, calls: Array<EventData<typeof sessionModelCalled>>): Promise<void> {
    const s = state.started!;
    const session = state.session!;
    const { table } = await request(this.nc, getPrices, {});
    const { costUsd, usage } = askCost(table, calls.map((c): AskModelCall => ({ model: c.model, usage: c.usage, at: c.at })));
    const base = { askId: s.askId, sessionId: session.sessionId, now: now() };
    if (ended.exitReason !== 'completed') {
      const reason = `The session ended: ${ended.exitReason}${ended.error ? ` (${ended.error})` : ended.summary ? ` (${ended.summary})` : ''}`;
      await recordAsk(this.store, s.team, { type: 'fail-ask', ...base, reason: reason.slice(0, 5_000), ...(costUsd ? { costUsd } : {}) });
      return;
    }
    const merged = await this.workspace.finish(s.askId, s.workspace, s.persona, session.baseCommit, s.prompt.split('\n')[0].slice(0, 150));
    if (merged.conflict) {
      await recordAsk(this.store, s.team, { type: 'fail-ask', ...base, reason: `The agent's work could not be merged into ${session.branch}: conflicts in ${merged.conflict.join(', ')}`, ...(costUsd ? { costUsd } : {}) });
      return;
    }
    await recordAsk(this.store, s.team, {
      type: 'complete-ask',
      ...base,
      result: ended.summary.slice(0, 20_000),
      filesChanged: merged.files,
      dir: session.dir,
      branch: session.branch,
      commit: merged.commit,
      costUsd: costUsd ?? 'unknown',
      usage,
      turns: ended.turns,
    });
  }
}
