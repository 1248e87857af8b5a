import { Logger } from '@nestjs/common';
import type { SessionUsage, sessionExitReasons } from '@headspace/contracts';
import { ConcurrencyError } from '@headspace/event-store';
import { recordError, SpanStatusCode, tracer, withAgentAttributes, withSpan, type Context, type GenAiAgentAttributes, type Span } from '@headspace/telemetry';
import { context, trace } from '@opentelemetry/api';
import type { PendingStep, SessionRecorder } from '../session-recorder';
import { compactedText, conversationOf, type ConversationBlock, type ConversationMessage } from '../session-conversation';
import type { BudgetDecision, BudgetPort, CompactionPort, HandoffPort, LifecyclePort, MailPort, ModelPort, ModelReply, ReflectionPort, ToolPort } from './session-ports';

export interface SessionLimits {
  maxTurns: number;
  maxOutputTokens: number;
  /** Share of the context window (0–1) at which the session hands off to a fresh one. */
  handoffThreshold: number;
}

export interface SessionPorts {
  model: ModelPort;
  tools: ToolPort;
  budget: BudgetPort;
  mail: MailPort;
  reflection: ReflectionPort;
  handoff: HandoffPort;
  system: ConversationBlock[];
  clock: () => string;
  /** The hook lifecycle beyond tool calls (SessionStart, UserPromptSubmit, …); none: only tool and Stop hooks. */
  lifecycle?: LifecyclePort;
  /** Compaction below the handoff threshold; none: the session only hands off. */
  compaction?: CompactionPort;
}

export interface SessionOutcome {
  exitReason: (typeof sessionExitReasons)[number];
  summary: string;
  turns: number;
  usage: SessionUsage;
}

type Exit = { exitReason: SessionOutcome['exitReason']; summary: string; error?: string };

/** Thrown when the runner is told to stop (shutdown, lease lost): the session is left to be resumed, not ended. */
export class SessionInterrupted extends Error {
  constructor() {
    super('session interrupted; it resumes from its stream');
  }
}

const textOf = (content: ConversationBlock[]) =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join('\n');

const contextTokens = (u: SessionUsage) => u.inputTokens + u.cacheReadTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens;

/**
 * The agent loop of one session, resumable at any step: everything it has done is in the session's
 * stream, so after a crash it rebuilds the conversation, answers the tool calls still pending
 * (never re-running one already recorded) and carries on. One span per session, turn and tool call.
 */
export class AgentSessionRunner {
  /** Messages for the model's next turn (Stop-hook continuations, the reflection retry): UserPromptSubmit hooks see them first. */
  private extraUserText: string[] = [];
  /** What hooks said for the model (SessionStart, UserPromptSubmit context): added to the next turn as it is. */
  private hookContext: string[] = [];
  private readonly logger = new Logger('AgentSession');

  constructor(
    private readonly recorder: SessionRecorder,
    private readonly ports: SessionPorts,
    private readonly limits: SessionLimits,
    private readonly signal?: AbortSignal,
  ) {}

  /** The last turn's record-usage, in flight while its reply is recorded and its tools run. */
  private settling: Promise<void> = Promise.resolve();
  /** The last tool result's append, in flight while the next call is budgeted. */
  private toolRecording: Promise<unknown> = Promise.resolve();
  /**
   * Tool inputs as the model sent them, by tool use id: the recorded reply has secrets redacted, but
   * a tool runs with what the model asked for (a resumed session has only the recorded input).
   */
  private readonly liveInputs = new Map<string, unknown>();

  /**
   * The span of the turn whose tool calls and Stop hooks run now: it stays open after the reply, so
   * they are its children, and ends when the next turn starts or the session stops.
   */
  private turnSpan?: { turn: number; span: Span; context: Context };

  run(): Promise<SessionOutcome> {
    const started = this.recorder.state.started!;
    const agent: GenAiAgentAttributes = {
      'gen_ai.agent.name': started.persona,
      'gen_ai.agent.id': started.sessionId,
      'gen_ai.conversation.id': started.sessionId,
      'headspace.persona': started.persona,
      'headspace.team': started.team,
      'headspace.session_id': started.sessionId,
      ...(started.runId ? { 'headspace.run_id': started.runId } : {}),
      ...(started.taskId ? { 'headspace.task_id': started.taskId } : {}),
    };
    // The model client copies these onto every `chat` span and GenAI metric beneath.
    return withAgentAttributes(agent, () =>
      withSpan(`invoke_agent ${started.persona}`, { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.request.model': started.model, ...agent } }, async () => {
        try {
          return await this.runInSpan();
        } finally {
          this.endTurn();
        }
      }),
    );
  }

  private async runInSpan(): Promise<SessionOutcome> {
    this.settling = this.settleLastTurn();
    let exit: Exit;
    try {
      exit = (await this.begin()) ?? (await this.loop());
      await this.settling;
    } catch (error) {
      // Whatever stopped the loop, the last call's usage is still settled before the session ends,
      // and no append of ours is in flight when the end is recorded.
      await Promise.allSettled([this.settling, this.toolRecording]);
      if (error instanceof SessionInterrupted) throw error;
      // Another instance took the session over (its lease expired here): it carries on, not us.
      if (error instanceof ConcurrencyError) throw new SessionInterrupted();
      exit = { exitReason: 'error', summary: 'The session failed', error: (error as Error).message };
    }
    const ended = await this.recorder.record({ type: 'end-session', sessionId: this.recorder.sessionId, ...exit, now: this.ports.clock() });
    if (ended.length > 0) await this.ports.lifecycle?.ended(exit.exitReason).catch((error) => this.logger.warn(`session ${this.recorder.sessionId}: SessionEnd hooks: ${(error as Error).message}`));
    const state = this.recorder.state;
    return { exitReason: exit.exitReason, summary: exit.summary, turns: state.turns, usage: state.usage };
  }

  /**
   * Setup and SessionStart hooks (`startup`, or `resume` for a session carried on after a stop),
   * and UserPromptSubmit on the task prompt of a fresh session: a hook that blocks it ends the
   * session before any model call; context the hooks add goes with the first turn.
   */
  private async begin(): Promise<Exit | undefined> {
    const lifecycle = this.ports.lifecycle;
    const state = this.recorder.state;
    if (!lifecycle || state.status !== 'running') return undefined;
    const fresh = state.turns === 0;
    this.hookContext.push(...(await lifecycle.start(fresh ? 'startup' : 'resume')));
    if (!fresh) return undefined;
    const submitted = await lifecycle.promptSubmitted(state.started!.prompt);
    if (submitted.blocked) {
      const reason = submitted.reason ?? 'no reason given';
      return { exitReason: 'cancelled', summary: `A UserPromptSubmit hook refused the task: ${reason}`, error: `prompt blocked by a hook: ${reason}` };
    }
    this.hookContext.push(...submitted.context);
    return undefined;
  }

  /** Opens turn n's span (ending the previous one) beneath the session's. */
  private openTurn(turn: number, resumed = false): Context {
    this.endTurn();
    const span = tracer.startSpan(`turn ${turn}`, { attributes: { 'headspace.session_id': this.recorder.sessionId, 'headspace.turn': turn, ...(resumed ? { 'headspace.resumed': true } : {}) } });
    this.turnSpan = { turn, span, context: trace.setSpan(context.active(), span) };
    return this.turnSpan.context;
  }

  private endTurn(error?: unknown): void {
    const open = this.turnSpan;
    if (!open) return;
    this.turnSpan = undefined;
    if (error === undefined) open.span.setStatus({ code: SpanStatusCode.OK });
    else recordError(open.span, error);
    open.span.end();
  }

  /** Runs fn in turn n's span; a resumed session opens one for the turn it carries on. */
  private inTurn<T>(turn: number, fn: () => Promise<T>): Promise<T> {
    return context.with(this.turnSpan?.turn === turn ? this.turnSpan.context : this.openTurn(turn, true), fn);
  }

  private async loop(): Promise<Exit> {
    let reflectionRetried = false;
    for (;;) {
      if (this.signal?.aborted) throw new SessionInterrupted();
      const state = this.recorder.state;
      if (state.status === 'ended') return { exitReason: 'completed', summary: 'already ended' };
      // The last tool result's append runs on while the next call is budgeted (see turn()).
      const lastTool = await this.answerPendingTools();
      const last = this.recorder.events.at(-1);
      const lastReply = [...this.recorder.events].reverse().find((e) => e.type === 'session.model-called');
      if (last?.type === 'session.model-called' && last.data.stopReason !== 'tool_use') {
        // The model stopped talking: Stop hooks may send it back to work; otherwise reflect and end.
        const finalText = textOf(last.data.content);
        await lastTool?.recorded;
        const keepGoing = await this.inTurn(last.data.turn, () => this.ports.tools.onStop(finalText));
        if (keepGoing) {
          this.extraUserText.push(keepGoing);
        } else {
          const parsed = this.ports.reflection.parse(finalText);
          if (parsed.ok || reflectionRetried || this.recorder.state.reflected) {
            await this.recordReflection(parsed, finalText);
            return { exitReason: 'completed', summary: summaryOf(finalText) };
          }
          reflectionRetried = true;
          this.extraUserText.push(this.ports.reflection.retryPrompt(parsed.error));
        }
      } else if (lastReply?.type === 'session.model-called' && this.recorder.state.compactedThroughTurn < lastReply.data.turn) {
        // (After a compaction the last reply's usage is the old context's: the next reply's tells.)
        const tokens = contextTokens(lastReply.data.usage);
        const used = tokens / this.ports.model.contextWindow(lastReply.data.model);
        const compaction = this.ports.compaction;
        // Compaction only below the handoff threshold: at or above it a session hands off instead (architecture §5).
        if (compaction && compaction.threshold < this.limits.handoffThreshold && used >= compaction.threshold) {
          await lastTool?.recorded;
          const stopped = await this.inTurn(lastReply.data.turn, () => this.compact(compaction, lastReply.data.turn, tokens));
          if (stopped) return stopped;
          continue;
        }
        if (used >= this.limits.handoffThreshold) {
          await lastTool?.recorded;
          return this.handOff(used * 100);
        }
      }
      if (this.recorder.state.turns >= this.limits.maxTurns) {
        await lastTool?.recorded;
        return { exitReason: 'max_turns', summary: `Stopped after ${this.limits.maxTurns} turns` };
      }
      const outcome = await this.turn(undefined, lastTool);
      if (outcome) return outcome;
    }
  }

  /**
   * One inference: ask the governor and peek at the mail together (while the previous turn's last
   * tool result is still being appended: its event is already decided, so the conversation has it),
   * call the model while the decision is recorded and the mail marked read, then settle usage and
   * record the reply together.
   */
  private async turn(extraText?: string, lastTool?: PendingStep): Promise<Exit | undefined> {
    // Told to stop while the last tools ran: no further model call (the caller lets their append settle).
    if (this.signal?.aborted) throw new SessionInterrupted();
    const turn = this.recorder.state.turns + 1;
    const sessionId = this.recorder.sessionId;
    const turnContext = this.openTurn(turn);
    // Ends here only if the turn failed or stops the session; otherwise its tools run in it first.
    return context.with(turnContext, () => this.inference(turn, sessionId, extraText, lastTool)).then(
      (exit) => {
        if (exit) this.endTurn();
        return exit;
      },
      (error: unknown) => {
        this.endTurn(error);
        throw error;
      },
    );
  }

  private async inference(turn: number, sessionId: string, extraText: string | undefined, lastTool: PendingStep | undefined): Promise<Exit | undefined> {
    const model = this.recorder.state.model!;
    // Built once per turn: the budget decision recorded below is not part of the conversation.
    const conversation = conversationOf([...this.recorder.events, ...(lastTool?.events ?? [])]);
    const estimatedInputTokens = Math.ceil(JSON.stringify(conversation).length / 4);
    // The previous turn's usage settled while its tools ran; the governor must count it before this call.
    await this.settling.catch(async (error) => {
      await lastTool?.recorded;
      throw error;
    });
    const asked = Promise.all([
      this.ports.budget.maySpend({ model, estimatedInputTokens, maxOutputTokens: this.limits.maxOutputTokens, turn }),
      this.ports.mail.peek(),
    ]);
    // Nothing else is recorded before the tool result is: the stream keeps the order of the steps.
    const [answered, toolRecorded] = await Promise.allSettled([asked, lastTool?.recorded]);
    if (toolRecorded.status === 'rejected') {
      if (answered.status === 'fulfilled' && goesAhead(answered.value[0])) await this.releaseReservation(answered.value[0], turn, toolRecorded.reason).catch(() => undefined);
      throw toolRecorded.reason;
    }
    if (answered.status === 'rejected') throw answered.reason;
    const [budget, mail] = answered.value;
    const decided = this.recorder.record({
      type: 'record-budget-decision',
      sessionId,
      turn,
      decision: budget.decision,
      model: budget.model,
      ...(goesAhead(budget) ? { effort: budget.effort, reservationId: budget.reservationId } : {}),
      reason: budget.reason,
      now: this.ports.clock(),
    });
    if (!goesAhead(budget)) {
      await decided;
      if (budget.decision === 'paused') await this.notify(`${displayName(this.recorder.state.started!.persona)}'s session is paused: its budget needs a person's approval (${budget.reason})`, 'budget_approval');
      return { exitReason: budget.decision === 'paused' ? 'budget_paused' : 'budget_stopped', summary: budget.reason };
    }
    // Mail is marked read only once the call may go ahead; both writes settle before the reply is recorded.
    const wrote = Promise.all([decided, this.ports.mail.markRead(mail, turn)]);
    wrote.catch(() => undefined); // awaited on every path below; a lost lease must not reject it unhandled while the model answers
    const injected = await this.injectedText([...this.extraUserText.splice(0), ...(extraText ? [extraText] : []), ...(mail.text ? [mail.text] : [])].join('\n\n')).catch(async (error) => {
      await Promise.allSettled([wrote, this.releaseReservation(budget, turn, error)]);
      throw error;
    });
    const startedAt = performance.now();
    let reply: ModelReply;
    try {
      reply = await this.ports.model.call({
        model: budget.model,
        system: this.ports.system,
        tools: this.ports.tools.definitions(),
        messages: withInjected(conversation, injected),
        maxTokens: this.limits.maxOutputTokens,
        // The governor's level when it names one (a downgrade to Haiku is always quick), else the session's.
        effort: budget.effort ?? this.recorder.state.started!.effort,
      });
    } catch (error) {
      await Promise.allSettled([wrote, this.releaseReservation(budget, turn, error)]);
      throw error;
    }
    const durationMs = performance.now() - startedAt;
    await wrote;
    this.liveInputs.clear();
    for (const block of reply.content) if (block.type === 'tool_use') this.liveInputs.set(String(block.id), block.input);
    // Settling the reservation runs on while the reply is recorded and its tools run (idempotent per
    // turn: a resumed session settles its last turn again, see settleLastTurn).
    this.settling = this.ports.budget.recordUsage({ reservationId: budget.reservationId, model: reply.model, usage: reply.usage, turn });
    this.settling.catch(() => undefined); // awaited before the next call or the end; not unhandled meanwhile
    await this.recorder.record({
      type: 'record-model-call',
      sessionId,
      turn,
      model: reply.model,
      stopReason: reply.stopReason,
      content: reply.content,
      usage: reply.usage,
      injectedMessageIds: mail.messageIds,
      injectedText: injected,
      durationMs,
      now: this.ports.clock(),
    });
    return undefined;
  }

  /**
   * A runner that stopped between recording a reply and settling its usage left the reservation
   * open: settle the last recorded turn again (the governor answers a repeat of the same turn's
   * command id with its first result, so a settled turn costs one round trip and nothing else).
   */
  private async settleLastTurn(): Promise<void> {
    const events = this.recorder.events;
    const last = [...events].reverse().find((e) => e.type === 'session.model-called');
    if (last?.type !== 'session.model-called') return;
    const decided = events.find((e) => e.type === 'session.budget-decided' && e.data.turn === last.data.turn);
    const reservationId = decided?.type === 'session.budget-decided' ? decided.data.reservationId : undefined;
    await this.ports.budget.recordUsage({ reservationId, model: last.data.model, usage: last.data.usage, turn: last.data.turn });
  }

  /** A call that failed spent nothing: its worst-case reservation goes back now rather than at the governor's expiry. */
  private async releaseReservation(budget: GoAhead, turn: number, error: unknown): Promise<void> {
    if (!budget.reservationId) return;
    await this.ports.budget.release({ reservationId: budget.reservationId, turn, reason: `model call failed: ${(error as Error).message}` });
  }

  /**
   * Runs the tool calls of the last reply that have no recorded result yet, in the order asked. A
   * tool runs only once every earlier result is recorded; the last result's append is returned
   * unawaited (with its decided event), for the caller to await before it records anything else.
   */
  private async answerPendingTools(): Promise<PendingStep | undefined> {
    const last = [...this.recorder.events].reverse().find((e) => e.type === 'session.model-called');
    if (!last || last.type !== 'session.model-called') return undefined;
    let pending: PendingStep | undefined;
    for (const block of last.data.content) {
      if (block.type !== 'tool_use') continue;
      const id = String(block.id);
      await pending?.recorded;
      if (this.signal?.aborted) throw new SessionInterrupted();
      if (!this.recorder.state.pendingToolUses[id]) continue;
      const name = String(block.name);
      const startedAt = performance.now();
      const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': id, 'gen_ai.tool.type': this.ports.tools.typeOf?.(name) ?? 'function' };
      const outcome = await this.inTurn(last.data.turn, () =>
        withSpan(`execute_tool ${name}`, { attributes }, async (span) => {
          const result = await this.ports.tools.run({ id, name, input: this.liveInputs.has(id) ? this.liveInputs.get(id) : block.input });
          if (result.isError) span.setAttribute('error.type', 'tool_error');
          return result;
        }),
      );
      // The raw output: the logger redacts secrets in every line, as the recorder does in every event.
      if (outcome.isError) this.logger.debug(`session ${this.recorder.sessionId}: ${name} failed: ${outcome.content.slice(0, 500)}`);
      pending = this.recorder.begin({
        type: 'record-tool-call',
        sessionId: this.recorder.sessionId,
        turn: last.data.turn,
        toolUseId: id,
        tool: name,
        ...outcome,
        durationMs: performance.now() - startedAt,
        now: this.ports.clock(),
      });
      this.toolRecording = pending.recorded;
      pending.recorded.catch(() => undefined); // awaited by the caller; not unhandled meanwhile
    }
    return pending;
  }

  /**
   * This turn's added user text: what hooks said (SessionStart context, async hooks that finished),
   * then the injected messages as UserPromptSubmit hooks let them through — a blocked one is
   * replaced by a line saying so, their added context follows it.
   */
  private async injectedText(submitted: string): Promise<string | undefined> {
    const parts = [...this.hookContext.splice(0), ...(this.ports.lifecycle?.takeAsyncMessages() ?? [])];
    if (submitted) {
      const verdict = this.ports.lifecycle ? await this.ports.lifecycle.promptSubmitted(submitted) : { blocked: false, context: [] };
      if (verdict.blocked) parts.push(`[A UserPromptSubmit hook withheld a message here: ${verdict.reason ?? 'no reason given'}]`);
      else parts.push(submitted, ...verdict.context);
    }
    return parts.join('\n\n') || undefined;
  }

  /** Notification hooks (a person is needed); a failing notifier never stops the session. */
  private async notify(message: string, type: string): Promise<void> {
    await this.ports.lifecycle?.notify(message, type).catch((error) => this.logger.warn(`session ${this.recorder.sessionId}: Notification hooks: ${(error as Error).message}`));
  }

  /**
   * Compaction (seed 003 Req 2.4–2.11, Journey 10): triage writes the session-state file, PreCompact
   * hooks back up the context (the built-in backup), the model summarises the conversation (asked
   * of and settled with the governor under `compact:<turn>`), the summary is recorded and the
   * conversation carries on from it, after SessionStart hooks with source `compact`. Resumable: a
   * crash before the record repeats it, the governor answering the repeat with its first result.
   */
  private async compact(compaction: CompactionPort, turn: number, tokens: number): Promise<Exit | undefined> {
    return withSpan('compact_context', { attributes: { 'headspace.session_id': this.recorder.sessionId, 'headspace.turn': turn, 'headspace.context.tokens': tokens } }, async () => {
      const events = this.recorder.events;
      const conversation = conversationOf([...events]);
      const previous = [...events].reverse().find((e) => e.type === 'session.compacted');
      const known = [this.recorder.state.started!.prompt, ...(previous?.type === 'session.compacted' ? [compactedText(previous.data)] : [])];
      const persisted = await compaction.persist({ messages: conversation, turn, known });
      const backup = await this.ports.lifecycle?.preCompact('auto', persisted.snapshot, persisted.transcriptPath);
      for (const message of backup?.messages ?? []) this.logger.log(`session ${this.recorder.sessionId}: ${message}`);
      const key = `compact:${turn}`;
      const messages = withInjected(conversation, compaction.request());
      const budget = await this.ports.budget.maySpend({ model: this.recorder.state.model!, estimatedInputTokens: Math.ceil(JSON.stringify(messages).length / 4), maxOutputTokens: this.limits.maxOutputTokens, turn, key });
      if (!goesAhead(budget)) return { exitReason: budget.decision === 'paused' ? 'budget_paused' : 'budget_stopped', summary: budget.reason };
      let reply: ModelReply;
      try {
        reply = await this.ports.model.call({ model: budget.model, system: this.ports.system, tools: this.ports.tools.definitions(), messages, maxTokens: this.limits.maxOutputTokens, effort: 'quick' });
      } catch (error) {
        if (budget.reservationId) await this.ports.budget.release({ reservationId: budget.reservationId, turn, key, reason: `compaction failed: ${(error as Error).message}` }).catch(() => undefined);
        throw error;
      }
      await this.ports.budget.recordUsage({ reservationId: budget.reservationId, model: reply.model, usage: reply.usage, turn, key });
      const summary = textOf(reply.content).trim() || '(the model wrote no summary)';
      await this.recorder.record({
        type: 'record-compaction',
        sessionId: this.recorder.sessionId,
        turn,
        trigger: 'auto',
        model: reply.model,
        summary: summary.slice(0, 100_000),
        ...(persisted.preservedText ? { preserved: persisted.preservedText.slice(0, 100_000) } : {}),
        preservedItems: persisted.preserved,
        sessionFile: persisted.sessionFile,
        contextTokens: tokens,
        thresholdPercent: Math.round(compaction.threshold * 1000) / 10,
        usage: reply.usage,
        now: this.ports.clock(),
      });
      this.hookContext.push(...((await this.ports.lifecycle?.start('compact')) ?? []));
      return undefined;
    });
  }

  private async handOff(usedPercent: number): Promise<Exit> {
    const failed = await this.turn(this.ports.handoff.request(Math.round(usedPercent)));
    if (failed) return failed;
    const reply = this.recorder.events.at(-1);
    const text = reply?.type === 'session.model-called' ? textOf(reply.data.content) : '';
    const parsed = this.ports.handoff.parse(text);
    if (!parsed.ok) return { exitReason: 'error', summary: 'The handoff document was invalid', error: parsed.error };
    await this.recorder.record({
      type: 'record-handoff',
      sessionId: this.recorder.sessionId,
      handoff: parsed.handoff,
      contextUsedPercent: Math.min(100, usedPercent),
      now: this.ports.clock(),
    });
    return { exitReason: 'handoff', summary: `Handed off at ${Math.round(usedPercent)}% of the context window` };
  }

  private async recordReflection(parsed: ReturnType<ReflectionPort['parse']>, raw: string): Promise<void> {
    await this.recorder.record({
      type: 'record-reflection',
      sessionId: this.recorder.sessionId,
      malformed: !parsed.ok,
      ...(parsed.ok ? { reflection: parsed.reflection } : { raw: raw.slice(0, 50_000) }),
      now: this.ports.clock(),
    });
  }
}

const displayName = (persona: string) => persona.charAt(0).toUpperCase() + persona.slice(1);

function withInjected(messages: ConversationMessage[], text: string | undefined): ConversationMessage[] {
  if (!text) return messages;
  const last = messages.at(-1);
  if (last?.role === 'user') return [...messages.slice(0, -1), { role: 'user', content: [...last.content, { type: 'text', text }] }];
  return [...messages, { role: 'user', content: [{ type: 'text', text }] }];
}

function summaryOf(finalText: string): string {
  const withoutJson = finalText.replace(/```json[\s\S]*?```/g, '').replace(/\{[\s\S]*\}\s*$/, '').trim();
  return (withoutJson || finalText).slice(0, 2_000);
}

type GoAhead = Extract<BudgetDecision, { decision: 'allowed' | 'downgraded' }>;
const goesAhead = (budget: BudgetDecision): budget is GoAhead => budget.decision === 'allowed' || budget.decision === 'downgraded';
