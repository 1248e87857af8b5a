import { Logger } from '@nestjs/common';
import type { ClaudeCodeRun, ClaudeSpawnSpec, RunClaudeCodeOptions } from '@headspace/agent-runtime';
import { ConcurrencyError } from '@headspace/event-store';
import { resolveModel } from '@headspace/llm';
import { withSpan } from '@headspace/telemetry';
import { SessionInterrupted, type SessionOutcome } from '../run-session/agent-session.runner';
import type { BudgetDecision, BudgetPort } from '../run-session/session-ports';
import type { SessionRecorder } from '../session-recorder';
import { claudeSessionIdOf } from './claude-binary';
import { ClaudeStreamSteps, type StreamStep } from './claude-stream-steps';

/** What a Claude Code session runs with, besides its stream. */
export interface ClaudeCodeSessionPorts {
  budget: BudgetPort;
  clock: () => string;
  /** runClaudeCode of @headspace/agent-runtime; a spec may put a scripted CLI in its place. */
  runCli: (options: RunClaudeCodeOptions) => Promise<ClaudeCodeRun>;
}

export interface ClaudeCodeSessionSettings {
  binary: string;
  /** The CLI's environment (nothing else of the orchestrator's is passed on). */
  env: Record<string, string | undefined>;
  role: string;
  learnings: string;
  /** Manifest-style tools (`Read`, `Bash(git:*)`) and owned globs. */
  tools: readonly string[];
  owns: readonly string[];
  maxTurns: number;
  maxOutputTokens: number;
  /** The CLI's own `--max-budget-usd` when the governor names no limit. */
  fallbackBudgetUsd: number;
  timeoutMs?: number;
}

const EFFORT = { quick: 'low', standard: 'medium', deep: 'high' } as const;
const RESUME_PROMPT = 'The session was interrupted. Carry on with the task where you stopped, then return the reflection.';

type GoAhead = Extract<BudgetDecision, { decision: 'allowed' | 'downgraded' }>;
const goesAhead = (b: BudgetDecision): b is GoAhead => b.decision === 'allowed' || b.decision === 'downgraded';

/**
 * Runs a session whose runtime is `claude-code` as one `claude -p` invocation and records it like a
 * built-in session: the governor's decision before the invocation (a pause or stop ends the session
 * as the built-in runner does; a downgrade runs the CLI on the routed model), then each API message
 * of the stream as a turn (its usage settled with the governor), each tool result as a tool call,
 * the reflection and the end. The CLI's session id is derived from the session's, so a session
 * resumed after a crash continues the CLI's persisted conversation with `--resume`.
 */
export class ClaudeCodeSessionRunner {
  private readonly logger = new Logger('ClaudeCodeSession');
  private recording: Promise<void> = Promise.resolve();
  private failure?: unknown;
  private reservationId?: string;

  constructor(
    private readonly recorder: SessionRecorder,
    private readonly ports: ClaudeCodeSessionPorts,
    private readonly settings: ClaudeCodeSessionSettings,
    private readonly signal?: AbortSignal,
  ) {}

  run(): Promise<SessionOutcome> {
    const started = this.recorder.state.started!;
    return withSpan(`invoke_agent ${started.persona}`, { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.request.model': started.model, 'headspace.session_id': started.sessionId, 'headspace.runtime': 'claude-code' } }, () =>
      this.runInSpan(),
    );
  }

  private async runInSpan(): Promise<SessionOutcome> {
    const state = this.recorder.state;
    if (state.status === 'ended') return this.outcome('completed', 'already ended');
    const started = state.started!;
    const sessionId = this.recorder.sessionId;
    const firstTurn = state.turns + 1;
    const budget = await this.ports.budget.maySpend({
      model: started.model,
      estimatedInputTokens: Math.ceil(started.prompt.length / 4),
      maxOutputTokens: this.settings.maxOutputTokens,
      turn: firstTurn,
    });
    await this.recorder.record({
      type: 'record-budget-decision',
      sessionId,
      turn: firstTurn,
      decision: budget.decision,
      model: budget.model,
      ...(goesAhead(budget) ? { effort: budget.effort, reservationId: budget.reservationId } : {}),
      reason: budget.reason,
      now: this.ports.clock(),
    });
    if (!goesAhead(budget)) return this.end(budget.decision === 'paused' ? 'budget_paused' : 'budget_stopped', budget.reason);
    this.reservationId = budget.reservationId;
    let run: ClaudeCodeRun;
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    this.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      run = await this.invoke(budget, firstTurn, abort);
    } finally {
      this.signal?.removeEventListener('abort', onAbort);
    }
    await this.recording;
    if (this.failure instanceof ConcurrencyError || this.failure instanceof SessionInterrupted || this.signal?.aborted) throw new SessionInterrupted();
    if (this.failure) return this.end('error', 'The session failed', (this.failure as Error).message);
    if (this.reservationId) await this.ports.budget.release({ reservationId: this.reservationId, turn: firstTurn, reason: 'the Claude Code run made no model call' }).catch(() => undefined);
    return this.finish(run);
  }

  private invoke(budget: GoAhead, firstTurn: number, abort: AbortController): Promise<ClaudeCodeRun> {
    const state = this.recorder.state;
    const started = state.started!;
    const model = resolveModel(budget.model);
    const resumed = state.turns > 0;
    const steps = new ClaudeStreamSteps({ firstTurn, workspace: started.workspace, fallbackModel: model, openToolUses: state.pendingToolUses });
    const spec: ClaudeSpawnSpec = {
      name: started.persona,
      role: this.settings.role,
      owns: this.settings.owns,
      learnings: this.settings.learnings,
      model,
      tools: this.settings.tools,
      budgetUsd: Math.max(0.01, budget.remainingUsd ?? this.settings.fallbackBudgetUsd),
      task: resumed ? RESUME_PROMPT : started.prompt,
      effort: EFFORT[budget.effort ?? started.effort],
      maxTurns: Math.max(1, this.settings.maxTurns - state.turns),
      ...(resumed ? { resume: claudeSessionIdOf(started.sessionId) } : { sessionId: claudeSessionIdOf(started.sessionId) }),
      ...(started.workspace ? { policy: { checkoutRoot: started.workspace, ownedPaths: this.settings.owns } } : {}),
    };
    const take = (list: StreamStep[]) => {
      for (const step of list) this.enqueue(step, abort);
    };
    return this.ports
      .runCli({
        spec,
        cwd: started.workspace ?? process.cwd(),
        binary: this.settings.binary,
        env: this.settings.env,
        inheritEnv: false,
        signal: abort.signal,
        ...(this.settings.timeoutMs ? { timeoutMs: this.settings.timeoutMs } : {}),
        onMessage: (m) => take(steps.push(m)),
      })
      .then((run) => {
        take(steps.finish());
        return run;
      });
  }

  /** Steps are appended one after another in stream order; the first failure stops the CLI. */
  private enqueue(step: StreamStep, abort: AbortController): void {
    this.recording = this.recording.then(async () => {
      if (this.failure) return;
      try {
        await this.record(step);
      } catch (error) {
        this.failure = error;
        this.logger.warn(`session ${this.recorder.sessionId}: recording its stream failed: ${(error as Error).message}`);
        abort.abort();
      }
    });
  }

  private async record(step: StreamStep): Promise<void> {
    const sessionId = this.recorder.sessionId;
    const now = this.ports.clock();
    if (step.kind === 'tool-call') {
      const { kind: _k, ...data } = step;
      await this.recorder.record({ type: 'record-tool-call', sessionId, ...data, durationMs: 0, now });
      return;
    }
    await this.recorder.record({ type: 'record-model-call', sessionId, turn: step.turn, model: step.model, stopReason: step.stopReason, content: step.content, usage: step.usage, injectedMessageIds: [], durationMs: 0, now });
    // The invocation's reservation is settled by its first call; the later calls are recorded as spent.
    const reservationId = this.reservationId;
    this.reservationId = undefined;
    await this.ports.budget.recordUsage({ ...(reservationId ? { reservationId } : {}), model: step.model, usage: step.usage, turn: step.turn });
  }

  private async finish(run: ClaudeCodeRun): Promise<SessionOutcome> {
    const result = run.result;
    if (result.exitReason === 'cancelled') throw new SessionInterrupted();
    const sessionId = this.recorder.sessionId;
    if (result.reflection) {
      await this.recorder.record({ type: 'record-reflection', sessionId, malformed: false, reflection: result.reflection as Record<string, unknown>, now: this.ports.clock() });
    } else if (run.raw) {
      await this.recorder.record({ type: 'record-reflection', sessionId, malformed: true, raw: (run.raw.result ?? '').slice(0, 50_000), now: this.ports.clock() });
    }
    const exit = result.exitReason === 'budget_stopped' ? 'budget_stopped' : result.exitReason === 'max_turns' ? 'max_turns' : result.exitReason === 'completed' ? 'completed' : 'error';
    const summary = result.summary || (exit === 'completed' ? 'Completed' : `Claude Code ended with ${result.exitReason}`);
    return this.end(exit, summary.slice(0, 20_000), result.error ? `${result.error.code}: ${result.error.message}`.slice(0, 5_000) : undefined);
  }

  private async end(exitReason: SessionOutcome['exitReason'], summary: string, error?: string): Promise<SessionOutcome> {
    await this.recorder.record({ type: 'end-session', sessionId: this.recorder.sessionId, exitReason, summary, ...(error ? { error } : {}), now: this.ports.clock() });
    return this.outcome(exitReason, summary);
  }

  private outcome(exitReason: SessionOutcome['exitReason'], summary: string): SessionOutcome {
    const state = this.recorder.state;
    return { exitReason, summary, turns: state.turns, usage: state.usage };
  }
}
