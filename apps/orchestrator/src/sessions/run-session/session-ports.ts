import type { SessionUsage } from '@headspace/contracts';
import type { ConversationBlock, ConversationMessage } from '../session-conversation';

/**
 * What an agent session needs from the world, as ports: the runner stays a plain loop over them and
 * each adapter (Anthropic SDK or simulator, tools + hooks, cost governor over NATS, team-manager mail)
 * is tested on its own.
 */
export interface ModelCall {
  model: string;
  system: ConversationBlock[];
  tools: ConversationBlock[];
  messages: ConversationMessage[];
  maxTokens: number;
  effort: 'quick' | 'standard' | 'deep';
}

export interface ModelReply {
  model: string;
  content: ConversationBlock[];
  stopReason: string;
  usage: SessionUsage;
}

export interface ModelPort {
  call(request: ModelCall): Promise<ModelReply>;
  /** The context window of a model, in tokens. */
  contextWindow(model: string): number;
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
  filesModified: string[];
  hooks: Array<{ event: string; decision: string; reason?: string }>;
}

export interface ToolPort {
  definitions(): ConversationBlock[];
  run(call: { id: string; name: string; input: unknown }): Promise<ToolOutcome>;
  /** Stop hooks: a reason to keep going instead of stopping, or undefined to let the session stop. */
  onStop(lastText: string): Promise<string | undefined>;
  /** GenAI `gen_ai.tool.type`: `extension` for tools served by another service (the team's), else `function`. */
  typeOf?(name: string): 'function' | 'extension';
}

export type BudgetDecision =
  /** `effort`: the level the governor routed the call at (Haiku is always quick), when it says. */
  | {
      decision: 'allowed' | 'downgraded';
      model: string;
      effort?: 'quick' | 'standard' | 'deep';
      reservationId?: string;
      reason?: string;
      /** USD left under the tightest limited budget, this call's reservation included (a Claude Code run's backstop). */
      remainingUsd?: number;
    }
  | { decision: 'paused' | 'stopped'; model: string; reason: string };

/**
 * `turn` keys the governor's command ids; `key`, when given, replaces it there — for the calls a
 * session makes besides its turns (`compact:<turn>`, `hook:<id>`).
 */
export interface BudgetPort {
  maySpend(request: { model: string; estimatedInputTokens: number; maxOutputTokens: number; turn: number; key?: string }): Promise<BudgetDecision>;
  recordUsage(request: { reservationId?: string; model: string; usage: SessionUsage; turn: number; key?: string }): Promise<void>;
  /** Gives back the reservation of a call that never completed (best effort: the governor also expires it). */
  release(request: { reservationId: string; turn: number; key?: string; reason: string }): Promise<void>;
}

export interface Mail {
  messageIds: string[];
  /** The messages as `<teammate-message>` blocks; absent when there are none. */
  text?: string;
  /** The inbox version the mail was read at: marking read covers that much and nothing delivered since. */
  throughVersion?: string;
}

export interface MailPort {
  /** Unread mail for the persona; nothing is marked read. */
  peek(): Promise<Mail>;
  /** Marks peeked mail read, once the call carrying it goes ahead. */
  markRead(mail: Mail, turn: number): Promise<void>;
}

export interface ReflectionPort {
  /** The reflection protocol's instruction, sent again when the first answer was malformed. */
  retryPrompt(error: string): string;
  parse(finalText: string): { ok: true; reflection: Record<string, unknown> } | { ok: false; error: string };
}

export interface HandoffPort {
  /** The instruction that asks the model for the handoff artefact. */
  request(contextUsedPercent: number): string;
  parse(text: string): { ok: true; handoff: Record<string, unknown> } | { ok: false; error: string };
}

/**
 * The hook lifecycle of a session beyond its tool calls (seed 003 Req 3.1): Setup and SessionStart
 * when it starts, UserPromptSubmit for every prompt the model is given, Notification while it waits
 * for a person, PreCompact before compaction and SessionEnd when it ends. Async hooks' outcomes come
 * back through `takeAsyncMessages` and reach the model on its next turn.
 */
export interface LifecyclePort {
  /** Setup (once per workspace) and SessionStart; what the hooks said for the model. */
  start(source: 'startup' | 'resume' | 'compact'): Promise<string[]>;
  /** UserPromptSubmit: blocked (refused, with the reason) or the context the hooks added. */
  promptSubmitted(prompt: string): Promise<{ blocked: boolean; reason?: string; context: string[] }>;
  notify(message: string, type: string): Promise<void>;
  /** PreCompact: the built-in backup writes its file; the hooks' messages for the operator. */
  preCompact(trigger: 'auto' | 'manual', snapshot: unknown, transcriptPath?: string): Promise<{ messages: string[] }>;
  ended(reason: string): Promise<void>;
  /** Messages (systemMessage / additionalContext) of async hooks that finished since the last call. */
  takeAsyncMessages(): string[];
}

/** Compaction (seed 003 Req 2.4–2.12): where the session keeps what must survive it. */
export interface CompactionPort {
  /** Share of the working window (0–1) at which the session compacts. */
  threshold: number;
  /** The instruction that asks the model to summarise the conversation so far. */
  request(): string;
  /**
   * Triage of the conversation: writes the session-state file (its PRESERVE_* items, `known` texts
   * left out) and the transcript; returns the file, the preserved items rendered for the model and
   * the snapshot PreCompact hooks back up.
   */
  persist(input: { messages: ConversationMessage[]; turn: number; known?: readonly string[] }): Promise<{ sessionFile: string; preserved: number; preservedText: string; transcriptPath: string; snapshot: unknown }>;
}
