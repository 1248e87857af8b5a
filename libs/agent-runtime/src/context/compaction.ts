import { createHash } from 'node:crypto';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { ContextWindow, type TrackedContextItem } from './context-window';
import { compactPercentFor } from './thresholds';
import type { ContextSource } from './triage';

/**
 * The names an operator may set the compaction threshold under (seed 003 Req 2.12), first wins:
 * ours, Claude Code's and the seed's.
 */
export const COMPACT_PCT_ENVS = ['HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE', 'CLAUDE_AUTOCOMPACT_PCT_OVERRIDE', 'BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE'] as const;

/**
 * The percentage of the working window at which a session compacts: the first override set
 * (1–100), else the seed's default for the window (83.5% of 200K, 85% of 1M).
 */
export function compactPercentOf(windowTokens: number, overrides: Partial<Record<(typeof COMPACT_PCT_ENVS)[number], number | string | undefined>>): { percent: number; source: 'default' | (typeof COMPACT_PCT_ENVS)[number] } {
  for (const name of COMPACT_PCT_ENVS) {
    const raw = overrides[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 1 || value > 100) {
      throw new HeadspaceError(ErrorCodes.contextThresholdInvalid, `${name} must be a number from 1 to 100, got "${raw}"`, { field: name });
    }
    return { percent: value, source: name };
  }
  return { percent: compactPercentFor(windowTokens), source: 'default' };
}

/** A Messages-API conversation, as a session rebuilds it from its events. */
export interface ConversationLike {
  role: string;
  content: ReadonlyArray<Record<string, unknown>>;
}

const itemId = (source: ContextSource, content: string) => `${source}-${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : '')).join('\n');
  return '';
}

/**
 * Triage of every block of a conversation into a context window (Req 2.1–2.3), one turn per
 * assistant message: user text, the assistant's text, tool calls (ephemeral) and their results,
 * named by the tool that produced them. Items already in `window` (from the session file) stay;
 * the same content is one item (ids are content hashes), so compacting twice does not duplicate.
 */
export function triageConversation(messages: readonly ConversationLike[], window: ContextWindow): ContextWindow {
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant') window.beginTurn();
    for (const block of message.content) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim()) {
        const source: ContextSource = message.role === 'assistant' ? 'assistant' : 'user';
        window.add({ id: itemId(source, block.text), content: block.text, source });
      } else if (block.type === 'tool_use') {
        toolNames.set(String(block.id), String(block.name));
        const content = JSON.stringify({ name: block.name, input: block.input });
        window.add({ id: itemId('tool_use', content), content, source: 'tool_use', toolName: String(block.name) });
      } else if (block.type === 'tool_result') {
        const content = resultText(block.content);
        if (!content.trim()) continue;
        const toolName = toolNames.get(String(block.tool_use_id));
        window.add({ id: itemId('tool_result', content), content, source: 'tool_result', ...(toolName ? { toolName } : {}) });
      }
    }
  }
  return window;
}

/** The items that must survive compaction (PRESERVE_VERBATIM, PRESERVE_STRUCTURED). */
export function preservedItems(window: ContextWindow): TrackedContextItem[] {
  return window.list().filter((i) => i.tiers.includes('session-file'));
}

/**
 * The preserved items for the model, newest last, each whole (verbatim means verbatim): items that
 * do not fit in `maxChars` are left to the session file, oldest first, and counted in a last line.
 */
export function renderPreserved(items: readonly TrackedContextItem[], maxChars = 40_000): string {
  const kept: string[] = [];
  let used = 0;
  let dropped = 0;
  for (const item of [...items].reverse()) {
    const block = `[${item.category} ${item.kind}${item.toolName ? ` from ${item.toolName}` : ''}]\n${item.content}`;
    if (used + block.length > maxChars) {
      dropped += 1;
      continue;
    }
    kept.unshift(block);
    used += block.length + 2;
  }
  if (dropped > 0) kept.push(`(${dropped} older preserved item${dropped === 1 ? '' : 's'} only in the session-state file)`);
  return kept.join('\n\n');
}
