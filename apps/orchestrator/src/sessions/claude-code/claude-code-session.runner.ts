import { Logger } from '@nestjs/common';
import { assistantTexts, type ClaudeCodeRun, type ClaudePolicy, type ClaudeStreamMessage, type ClaudeSpawnSpec, type RunClaudeCodeOptions, type Sandbox } from '@headspace/agent-runtime';
import { ConcurrencyError } from '@headspace/event-store';
import { resolveModel } from '@headspace/llm';
import { withSpan } from '@headspace/telemetry';
import { SessionInterrupted, type SessionOutcome } from '../run-session/agent-session.runner';
import type { BudgetDecision, BudgetPort } from '../run-session/session-ports';
import type { OpenHookEndpoint } from '../hook-endpoint/claude-hook-endpoint.service';
import type { SessionRecorder } from '../session-recorder';
import { handoffPort } from '../ports/protocol-ports';
import { claudeSessionIdOf } from './claude-binary';
import { ClaudeStreamSteps, usageOf, type StreamStep } from './claude-stream-steps';

/** What a Claude Code session runs with, besides its stream. */
export interface ClaudeCodeSessionPorts {
  budget: BudgetPort;
  clock: () => string;
  /** runClaudeCode of @headspace/agent-runtime; a spec may put a scripted CLI in its place. */
  runCli: (options: RunClaudeCodeOptions) => Promise<ClaudeCodeRun>;
  /** The session's door into Headspace's hook engine for one CLI invocation (with the policy it decides by). */
  openHooks?: (policy: ClaudePolicy, tools: readonly string[], halt: (toolUseId: string | undefined) => Promise<string | undefined>) => Promise<OpenHookEndpoint>;
  /**
   * Resolves once the CLI's persisted conversation holds the API message `messageId` (or gives up):
   * a CLI stopped before it saved the message it printed cannot be resumed for the handoff.
   */
  conversationSaved?: (messageId: string) => Promise<void>;
}

export interface ClaudeCodeSessionSettings {
  binary: string;
  /** The CLI's environment (nothing else of the orchestrator's is passed on). */
  env: Record<string, string | undefined>;
  role: string;
  learnings: string;
  /** The custom agent the session runs as (`--agent` on an ask or a run): its body joins the appended system prompt. */
  agent?: { name: string; prompt: string };
  /** Manifest-style tools (`Read`, `Bash(git:*)`) and owned globs. */
  tools: readonly string[];
  owns: readonly string[];
  maxTurns: number;
  maxOutputTokens: number;
  /** The CLI's own `--max-budget-usd` when the governor names no limit. */
  fallbackBudgetUsd: number;
  timeoutMs?: number;
  /** The share of the context window that makes the session hand off (as a built-in session's); none: never. */
  handoffThreshold?: number;
  /** The working context window of a model. */
  contextWindow: (model: string) => number;
  /** The session's sandbox around the CLI process (its install and home mounted), as the team's settings say. */
  sandbox?: Sandbox;
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
  /** The context's fill (percent) that stopped the CLI for a handoff. */
  private handoffAt?: number;
  /** Tool uses the stream has shown, and PreToolUse hooks waiting for theirs. */
  private readonly toolUsesSeen = new Set<string>();
  private readonly toolUseWaiters = new Map<string, () => void>();

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
    const invoked = await this.invokeWithBudget(Math.ceil(started.prompt.length / 4));
    if ('exitReason' in invoked) return invoked;
    if (this.handoffAt !== undefined) return this.handOff(this.handoffAt);
    return this.finish(invoked.run);
  }

  /**
   * The governor's decision for the next invocation (recorded), then the CLI, its stream recorded
   * as it comes; an outcome when the session ends here (a pause or stop, a failed recording).
   */
  private async invokeWithBudget(estimatedInputTokens: number, handoff?: { task: string }): Promise<{ run: ClaudeCodeRun } | SessionOutcome> {
    const started = this.recorder.state.started!;
    const sessionId = this.recorder.sessionId;
    const firstTurn = this.recorder.state.turns + 1;
    const budget = await this.ports.budget.maySpend({ model: started.model, estimatedInputTokens, maxOutputTokens: this.settings.maxOutputTokens, turn: firstTurn });
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
      run = await this.invoke(budget, firstTurn, abort, handoff);
    } finally {
      this.signal?.removeEventListener('abort', onAbort);
    }
    await this.recording;
    if (this.failure instanceof ConcurrencyError || this.failure instanceof SessionInterrupted || this.signal?.aborted) throw new SessionInterrupted();
    if (this.failure) return this.end('error', 'The session failed', (this.failure as Error).message);
    if (this.reservationId) await this.ports.budget.release({ reservationId: this.reservationId, turn: firstTurn, reason: 'the Claude Code run made no model call' }).catch(() => undefined);
    return { run };
  }

  /**
   * The context filled (the CLI was stopped after that model call): the same CLI conversation is
   * resumed with the handoff request of a built-in session, its answer validated and recorded as
   * the session's handoff, and the session ends `handoff` — the run carries the task on in a fresh
   * session seeded with the document (seed 000 §6.3), as for a built-in session.
   */
  private async handOff(usedPercent: number): Promise<SessionOutcome> {
    const task = handoffPort.request(Math.round(usedPercent));
    const invoked = await this.invokeWithBudget(Math.ceil(task.length / 4), { task });
    if ('exitReason' in invoked) return invoked;
    if (invoked.run.result.exitReason === 'cancelled') throw new SessionInterrupted();
    const text = assistantTexts(invoked.run.messages).at(-1) ?? invoked.run.raw?.result ?? '';
    const parsed = handoffPort.parse(text.replace(/^\[simulated\]\s*/, ''));
    if (!parsed.ok) return this.end('error', 'The handoff document was invalid', parsed.error);
    await this.recorder.record({ type: 'record-handoff', sessionId: this.recorder.sessionId, handoff: parsed.handoff, contextUsedPercent: Math.min(100, usedPercent), now: this.ports.clock() });
    return this.end('handoff', `Handed off at ${Math.round(usedPercent)}% of the context window`);
  }

  private async invoke(budget: GoAhead, firstTurn: number, abort: AbortController, handoff?: { task: string }): Promise<ClaudeCodeRun> {
    const state = this.recorder.state;
    const started = state.started!;
    const model = resolveModel(budget.model);
    const resumed = state.turns > 0;
    const policy: ClaudePolicy | undefined = started.workspace ? { checkoutRoot: started.workspace, ownedPaths: this.settings.owns } : undefined;
    const hooks = policy && this.ports.openHooks ? await this.ports.openHooks(policy, this.settings.tools, (id) => this.haltBeforeTool(id)) : undefined;
    const steps = new ClaudeStreamSteps({ firstTurn, workspace: started.workspace, fallbackModel: model, openToolUses: state.pendingToolUses, ...(hooks ? { hooksOf: hooks.hooksOf } : {}) });
    const spec: ClaudeSpawnSpec = {
      name: started.persona,
      role: this.settings.role,
      owns: this.settings.owns,
      learnings: this.settings.learnings,
      ...(this.settings.agent ? { agent: this.settings.agent } : {}),
      model,
      tools: this.settings.tools,
      budgetUsd: Math.max(0.01, budget.remainingUsd ?? this.settings.fallbackBudgetUsd),
      task: handoff?.task ?? (resumed ? RESUME_PROMPT : started.prompt),
      effort: EFFORT[budget.effort ?? started.effort],
      // the handoff answer is one reply, markdown, not the reflection
      maxTurns: handoff ? 1 : Math.max(1, this.settings.maxTurns - state.turns),
      ...(handoff ? { structuredOutput: false } : {}),
      ...(resumed ? { resume: claudeSessionIdOf(started.sessionId) } : { sessionId: claudeSessionIdOf(started.sessionId) }),
      ...(policy ? { policy } : {}),
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
        ...(hooks ? { hookEndpoint: hooks } : {}),
        ...(this.settings.sandbox ? { sandbox: this.settings.sandbox } : {}),
        ...(this.settings.timeoutMs ? { timeoutMs: this.settings.timeoutMs } : {}),
        onWarning: (message) => this.logger.warn(`session ${this.recorder.sessionId}: ${message}`),
        onMessage: (m) => {
          take(steps.push(m));
          if (!handoff) this.watchContext(m, model, abort);
          this.noteToolUses(m);
        },
      })
      .then((run) => {
        take(steps.finish());
        return run;
      })
      .finally(() => hooks?.close());
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

  /**
   * The PreToolUse hook of a tool call waits until the stream has shown the message asking for it
   * (the CLI prints it and calls the hook; which arrives first is not fixed), so a message that
   * filled the context halts the CLI before its tool runs.
   */
  private async haltBeforeTool(toolUseId: string | undefined): Promise<string | undefined> {
    if (toolUseId && !this.toolUsesSeen.has(toolUseId)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        this.toolUseWaiters.set(toolUseId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.toolUseWaiters.delete(toolUseId);
    }
    return this.handoffAt === undefined ? undefined : `The context is ${Math.round(this.handoffAt)}% full: the session hands off before this tool runs`;
  }

  private noteToolUses(m: ClaudeStreamMessage): void {
    if (m.type !== 'assistant') return;
    const content = (m as { message?: { content?: unknown } }).message?.content;
    if (!Array.isArray(content)) return;
    for (const block of content as Array<{ type?: unknown; id?: unknown }>) {
      if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
      this.toolUsesSeen.add(block.id);
      this.toolUseWaiters.get(block.id)?.();
    }
  }

  /**
   * A main-agent message asking for a tool with a context past the threshold stops the CLI for the
   * handoff: its PreToolUse hook halts it before the tool runs, and it is stopped once its
   * conversation holds the message (so it can be resumed). The CLI prints a message's usage with
   * its first line.
   */
  private watchContext(m: ClaudeStreamMessage, fallbackModel: string, abort: AbortController): void {
    const threshold = this.settings.handoffThreshold;
    if (threshold === undefined || this.handoffAt !== undefined || m.type !== 'assistant' || m.parent_tool_use_id) return;
    const message = (m as { message?: { content?: unknown; usage?: Record<string, unknown>; model?: unknown } }).message;
    if (!Array.isArray(message?.content) || !message.content.some((b: { type?: unknown; name?: unknown }) => b.type === 'tool_use' && b.name !== 'StructuredOutput')) return;
    const u = usageOf(message.usage);
    const model = typeof message.model === 'string' && message.model !== '' ? message.model : fallbackModel;
    const used = (u.inputTokens + u.cacheReadTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens) / this.settings.contextWindow(model);
    if (used < threshold) return;
    this.handoffAt = used * 100;
    const messageId = (message as { id?: unknown }).id;
    const saved = typeof messageId === 'string' && this.ports.conversationSaved ? this.ports.conversationSaved(messageId) : Promise.resolve();
    void saved.catch(() => undefined).then(() => abort.abort());
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
