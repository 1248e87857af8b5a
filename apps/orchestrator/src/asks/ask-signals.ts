import type { TaskSignals } from '@headspace/contracts';

/** What is known about the request besides its words. */
export interface AskFacts {
  /** Files of the workspace, when listed (a name in the prompt that matches one counts as a file). */
  workspaceFiles?: readonly string[];
}

export interface AskSignals {
  signals: TaskSignals;
  /** Why, in words, for the routing record (`names 1 file: README.md`). */
  reasons: string[];
}

// Path-like words with an extension (README.md, src/auth/token.ts) or a directory (src/auth/).
const FILE = /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,9}|(?:[\w.-]+\/)+)(?=$|[\s`'"),;:!?])/g;
const RISKY = /\b(refactor\w*|migrat\w*|security|secure|auth\w*|permission\w*|crypt\w*|concurren\w*|race|architect\w*|redesign\w*|rewrite|breaking)\b/gi;
const WIDE = /\b(across|throughout|every(?:where)?|all (?:the )?(?:files|modules|services|packages)|codebase|whole (?:repo|project|code))\b/i;
const QUESTION = /^(what|why|how|where|which|who|when|explain|describe|find|list|show|summari[sz]e|is|are|does|do|can)\b/i;
const EDIT = /\b(fix|add|change|edit|write|implement|rename|remove|delete|update|create|refactor|migrate|replace|bump)\b/i;
const VAGUE = /\b(somehow|something|improve|clean ?up|better|nicer|tidy|whatever)\b/i;

/** Counted as touching several files when the prompt says it is wide but names at most one. */
const WIDE_FILES = 5;

/**
 * The router's view of one request (seed 003 Req 4.5), read from the prompt alone: files it names,
 * words that mean risk (refactor, migrate, security, auth, …) or breadth (across, every, …), whether
 * it is a question rather than a change, and how much it leaves open. Pure: the same prompt always
 * routes the same way, and the reasons say why.
 */
export function askSignals(prompt: string, facts: AskFacts = {}): AskSignals {
  const reasons: string[] = [];
  const named = [...new Set([...prompt.matchAll(FILE)].map((m) => m[1]).filter((f) => !/^\d+(\.\d+)+$/.test(f)))];
  const known = facts.workspaceFiles ? named.filter((f) => facts.workspaceFiles!.some((w) => w === f || w.startsWith(f))) : named;
  const risky = [...new Set([...prompt.matchAll(RISKY)].map((m) => m[1].toLowerCase()))];
  const wide = WIDE.exec(prompt)?.[1];
  const text = prompt.trim();
  const isExploration = (QUESTION.test(text) || text.endsWith('?')) && !EDIT.test(text);

  let filesAffected = Math.max(1, known.length);
  if (known.length) reasons.push(`names ${known.length} file${known.length === 1 ? '' : 's'}: ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', …' : ''}`);
  // "across a, b and c" is about those files; "across the codebase" naming none or one is wider.
  if (wide && known.length <= 1) {
    filesAffected = WIDE_FILES;
    reasons.push(`"${wide}": several files`);
  }
  if (risky.length) reasons.push(`risky work: ${risky.slice(0, 4).join(', ')}`);
  if (isExploration) reasons.push('a question, no change asked for');

  const ambiguity: TaskSignals['ambiguity'] = text.length > 1_500 || (VAGUE.test(text) && known.length === 0) ? (known.length === 0 && !isExploration ? 'high' : 'medium') : text.length > 600 ? 'medium' : 'low';
  if (ambiguity !== 'low') reasons.push(`${ambiguity} ambiguity (${text.length} characters${VAGUE.test(text) ? ', vague wording' : ''})`);

  return {
    signals: { isExploration, filesAffected, requiresReasoning: risky.length > 0 || (ambiguity === 'high' && !isExploration), isTeamLead: false, dependencyDepth: 0, ambiguity },
    reasons,
  };
}
