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

export interface BudgetPort {
  maySpend(request: { model: string; estimatedInputTokens: number; maxOutputTokens: number; turn: number }): Promise<BudgetDecision>;
  recordUsage(request: { reservationId?: string; model: string; usage: SessionUsage; turn: number }): Promise<void>;
  /** Gives back the reservation of a call that never completed (best effort: the governor also expires it). */
  release(request: { reservationId: string; turn: number; reason: string }): Promise<void>;
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
