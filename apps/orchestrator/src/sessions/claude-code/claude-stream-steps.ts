import { isAbsolute, relative, resolve } from 'node:path';
import type { SessionUsage } from '@headspace/contracts';
import type { ClaudeStreamMessage } from '@headspace/agent-runtime';
import type { ConversationBlock } from '../session-conversation';

/** A step of the session as the built-in runner records it, read off the CLI's stream. */
export type StreamStep =
  | { kind: 'model-call'; turn: number; model: string; stopReason: string; content: ConversationBlock[]; usage: SessionUsage }
  | {
      kind: 'tool-call';
      turn: number;
      toolUseId: string;
      tool: string;
      isError: boolean;
      content: string;
      filesModified: string[];
      hooks: Array<{ event: string; decision: string; reason?: string }>;
    };

const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** How a call stopped by the CLI's permissions, Headspace's hook bridge, another PreToolUse hook, or a missing tool reads. */
const DENIED = /^(?:<tool_use_error>)?Headspace policy:|has been denied|permission.*denied|hook.*(?:denied|blocked)|blocked by .*hook|No such tool available/i;
const MAX_CONTENT = 200_000;
const SYNTHETIC_MODEL = '<synthetic>';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);

/** The Messages API usage of one assistant message as the session records it. */
export function usageOf(u: Record<string, unknown> | undefined): SessionUsage {
  const creation = (u?.cache_creation ?? {}) as Record<string, unknown>;
  const split = creation.ephemeral_5m_input_tokens !== undefined || creation.ephemeral_1h_input_tokens !== undefined;
  return {
    inputTokens: num(u?.input_tokens),
    outputTokens: num(u?.output_tokens),
    cacheWrite5mTokens: split ? num(creation.ephemeral_5m_input_tokens) : num(u?.cache_creation_input_tokens),
    cacheWrite1hTokens: split ? num(creation.ephemeral_1h_input_tokens) : 0,
    cacheReadTokens: num(u?.cache_read_input_tokens),
  };
}

const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheWrite5mTokens', 'cacheWrite1hTokens', 'cacheReadTokens'] as const;

/** A result line's `modelUsage` summed over models: the whole process so far, subagents included. */
export function cumulativeUsage(result: ClaudeStreamMessage): SessionUsage | undefined {
  const models = result.modelUsage;
  if (!models || typeof models !== 'object' || Object.keys(models).length === 0) return undefined;
  const sum: SessionUsage = { inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
  for (const m of Object.values(models as Record<string, Record<string, unknown>>)) {
    const split = m.cacheCreationEphemeral5mInputTokens !== undefined || m.cacheCreationEphemeral1hInputTokens !== undefined;
    sum.inputTokens += num(m.inputTokens);
    sum.outputTokens += num(m.outputTokens);
    sum.cacheWrite5mTokens += split ? num(m.cacheCreationEphemeral5mInputTokens) : num(m.cacheCreationInputTokens);
    sum.cacheWrite1hTokens += split ? num(m.cacheCreationEphemeral1hInputTokens) : 0;
    sum.cacheReadTokens += num(m.cacheReadInputTokens);
  }
  return sum;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: unknown }) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
  return '';
}

interface OpenMessage {
  id: string;
  model: string;
  content: ConversationBlock[];
  usage?: Record<string, unknown>;
  stopReason?: string;
}

/**
 * Turns the CLI's stream-json lines into the session's steps, in the order the decider accepts:
 * one model call per API message of the main agent (the CLI prints a line per content block, all
 * under the message's id; the last line's usage is the message's), then a tool call per tool_result
 * answering it. Subagents' lines (parent_tool_use_id set) are their own conversation and left out.
 * A tool_use the CLI never answered is answered as interrupted before the next model call, so a
 * resumed session (which starts with the calls the crash left open) records in order too.
 */
export class ClaudeStreamSteps {
  private open?: OpenMessage;
  private turn: number;
  /** tool_use id → tool name and input, of the recorded turns, not answered yet. */
  private readonly pending = new Map<string, { tool: string; input?: Record<string, unknown>; turn: number }>();
  /** Usage of the model calls stepped so far. */
  private readonly recorded: SessionUsage = { inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
  /** Results that came before their model call was complete. */
  private readonly early = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly options: {
      firstTurn: number;
      workspace?: string;
      fallbackModel: string;
      openToolUses?: Record<string, string>;
      /** What Headspace's hook endpoint decided on a call, when it heard of it. */
      hooksOf?: (toolUseId: string) => Array<{ event: string; decision: string; reason?: string }>;
    },
  ) {
    this.turn = options.firstTurn - 1;
    for (const [id, tool] of Object.entries(options.openToolUses ?? {})) this.pending.set(id, { tool, turn: this.turn });
  }

  /** The steps this line completes. */
  push(m: ClaudeStreamMessage): StreamStep[] {
    if (m.parent_tool_use_id) return [];
    if (m.type === 'assistant') return this.assistant(m as Extract<ClaudeStreamMessage, { type: 'assistant' }>);
    if (m.type === 'user') return this.user(m);
    if (m.type === 'result') return this.flush(cumulativeUsage(m));
    return [];
  }

  /** What is left at the end of the stream: the last model call, and any results it was waiting for. */
  finish(): StreamStep[] {
    return this.flush();
  }

  private assistant(m: Extract<ClaudeStreamMessage, { type: 'assistant' }>): StreamStep[] {
    const message = m.message ?? { content: [] };
    // The CLI's own stand-in for a reply it never got (an interrupted or failed call): no model call, nothing to settle.
    if (message.model === SYNTHETIC_MODEL) return [];
    const id = typeof message.id === 'string' ? message.id : `line-${this.turn + 1}`;
    const out = this.open && this.open.id !== id ? this.flush() : [];
    this.open ??= { id, model: typeof message.model === 'string' && message.model !== '' ? message.model : this.options.fallbackModel, content: [] };
    this.open.content.push(...(Array.isArray(message.content) ? (message.content as ConversationBlock[]) : []));
    if (message.usage) this.open.usage = message.usage;
    const stop = (message as { stop_reason?: unknown }).stop_reason;
    if (typeof stop === 'string') this.open.stopReason = stop;
    return out;
  }

  private user(m: ClaudeStreamMessage): StreamStep[] {
    const content = (m as { message?: { content?: unknown } }).message?.content;
    if (!Array.isArray(content)) return [];
    const out: StreamStep[] = [];
    for (const block of content as Array<Record<string, unknown>>) {
      if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
      if (this.pending.has(block.tool_use_id)) out.push(this.answer(block.tool_use_id, block));
      else this.early.set(block.tool_use_id, block);
    }
    return out;
  }

  /**
   * `total`: the process's usage so far (a result's modelUsage). The CLI prints each message with
   * the usage of its start (output tokens 1), so the call open at a result takes what the recorded
   * calls lack — the output of every call, and any subagent's tokens.
   */
  private flush(total?: SessionUsage): StreamStep[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    // The decider takes a turn only once the last one's calls are all answered.
    const out: StreamStep[] = [...this.pending.keys()].map((id) => this.answer(id, undefined));
    this.turn += 1;
    const toolUses = open.content.filter((b) => b.type === 'tool_use' && typeof b.id === 'string');
    out.push({
      kind: 'model-call',
      turn: this.turn,
      model: open.model,
      stopReason: toolUses.length > 0 ? 'tool_use' : (open.stopReason ?? 'end_turn'),
      content: open.content,
      usage: this.counted(usageOf(open.usage), total),
    });
    for (const b of toolUses) this.pending.set(String(b.id), { tool: String(b.name), input: b.input as Record<string, unknown> | undefined, turn: this.turn });
    for (const b of toolUses) {
      const early = this.early.get(String(b.id));
      if (early) {
        this.early.delete(String(b.id));
        out.push(this.answer(String(b.id), early));
      }
    }
    return out;
  }

  private counted(own: SessionUsage, total: SessionUsage | undefined): SessionUsage {
    const usage = { ...own };
    if (total) {
      for (const k of USAGE_KEYS) usage[k] = Math.max(own[k], total[k] - this.recorded[k]);
    }
    for (const k of USAGE_KEYS) this.recorded[k] += usage[k];
    return usage;
  }

  private answer(id: string, block: Record<string, unknown> | undefined): StreamStep {
    const call = this.pending.get(id)!;
    this.pending.delete(id);
    if (!block) {
      return { kind: 'tool-call', turn: call.turn, toolUseId: id, tool: call.tool, isError: true, content: 'The Claude Code CLI stopped before this call returned.', filesModified: [], hooks: [] };
    }
    const isError = block.is_error === true;
    const content = resultText(block.content).slice(0, MAX_CONTENT);
    const denied = isError && DENIED.test(content);
    return {
      kind: 'tool-call',
      turn: call.turn,
      toolUseId: id,
      tool: call.tool,
      isError,
      content,
      filesModified: !isError && WRITE_TOOLS.has(call.tool) ? this.fileOf(call.input) : [],
      hooks: this.hooksOf(id, denied, content),
    };
  }

  /** The endpoint's decisions on the call; else a denial read off the CLI's error text. */
  private hooksOf(id: string, denied: boolean, content: string): Array<{ event: string; decision: string; reason?: string }> {
    const heard = this.options.hooksOf?.(id) ?? [];
    if (heard.length > 0) return heard.slice(0, 50);
    return denied ? [{ event: 'PreToolUse', decision: 'deny', reason: content.replace(/<\/?tool_use_error>/g, '').trim().slice(0, 2_000) }] : [];
  }

  /** The written file, relative to the workspace (a path outside it is kept absolute). */
  private fileOf(input: Record<string, unknown> | undefined): string[] {
    const path = input?.file_path ?? input?.notebook_path;
    if (typeof path !== 'string' || path === '') return [];
    const root = this.options.workspace;
    if (!root) return [path];
    const abs = isAbsolute(path) ? path : resolve(root, path);
    const rel = relative(resolve(root), abs);
    return [rel.startsWith('..') || isAbsolute(rel) ? abs : rel];
  }
}
