import { estimateTokens } from '@headspace/agent-runtime';
import type { RankedLearning } from '@headspace/contracts';

/** One learning as a prompt line: what was met, what to do about it, and how far it has held up. */
export const learningLine = (l: Pick<RankedLearning, 'pattern' | 'resolution' | 'confidence'>): string =>
  `- ${l.pattern}${l.resolution ? ` → ${l.resolution}` : ''} (confidence ${l.confidence.toFixed(2)})`;

/**
 * The learnings block of a session's prompt: ranked learnings in order while they fit the token
 * budget (one that does not fit is skipped, a shorter one after it may still fit). Pure.
 */
export function renderLearningsForPrompt(ranked: readonly RankedLearning[], budgetTokens: number): { text: string; learningIds: string[] } {
  const lines: string[] = [];
  const learningIds: string[] = [];
  let used = 0;
  for (const l of ranked) {
    const line = learningLine(l);
    const cost = estimateTokens(`${line}\n`);
    if (used + cost > budgetTokens) continue;
    used += cost;
    lines.push(line);
    learningIds.push(l.learningId);
  }
  return { text: lines.join('\n'), learningIds };
}

const SEPARATORS = [' → ', ' -> ', ' — ', ': '];

/** A reflection's one-line learning as pattern and resolution: split at the first "→", "->", "—" or ": "; else all pattern. */
export function splitLearning(content: string): { pattern: string; resolution: string } {
  const text = content.replace(/\s+/g, ' ').trim();
  for (const sep of SEPARATORS) {
    const at = text.indexOf(sep);
    if (at > 0 && at + sep.length < text.length) return { pattern: text.slice(0, at).trim(), resolution: text.slice(at + sep.length).trim() };
  }
  return { pattern: text, resolution: '' };
}
