import type { ContextCategory } from '@headspace/contracts';

/**
 * Semantic triage of context items (seed 003 Requirement 2.1–2.2). Four categories:
 *  - PRESERVE_VERBATIM: never summarise — error messages, file paths, variable names, test output,
 *    git diff hunks, API responses (and the user's own requirements).
 *  - PRESERVE_STRUCTURED: compress the format, keep the data — decision records, task lists,
 *    acceptance criteria, schemas.
 *  - COMPRESS_AGGRESSIVE: summarise to key takeaways — discussion, reasoning chains, alternatives.
 *  - EPHEMERAL: drop after use — tool call metadata, raw search results, intermediate compilation output.
 */
export type { ContextCategory };

export type ContextSource = 'user' | 'assistant' | 'tool_use' | 'tool_result' | 'system';

export interface ContextItemInput {
  content: string;
  source: ContextSource;
  /** Tool that produced a tool_result (e.g. Grep, Glob, Bash). */
  toolName?: string;
  /** Caller's explicit category, wins over the patterns (e.g. a handoff note it knows is verbatim). */
  category?: ContextCategory;
  kind?: string;
}

export interface Classification {
  category: ContextCategory;
  /** Name of the pattern that decided (e.g. stack-trace, file-path, decision-record). */
  kind: string;
}

interface NamedPattern {
  kind: string;
  test: (content: string) => boolean;
}

const re = (kind: string, ...patterns: RegExp[]): NamedPattern => ({ kind, test: (c) => patterns.some((p) => p.test(c)) });

/** VERBATIM_PATTERNS: the strong ones decide before anything else (an error inside build output is still an error). */
export const VERBATIM_PATTERNS: NamedPattern[] = [
  re('stack-trace', /^\s+at [\w.$<>[\]]+ \(.+:\d+:\d+\)\s*$/m, /^\s+at .+:\d+:\d+\s*$/m, /Traceback \(most recent call last\)/, /^\s+File ".+", line \d+/m),
  re('error-message', /\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?::|\s*\()/, /^\s*(?:error|fatal|panic)(?:\[[\w-]+\])?:/im, /\bE[A-Z]{3,}\b: /, /\berror TS\d+:/),
  re('test-output', /\b\d+ (?:passed|failed|passing|failing|skipped)\b/, /^\s*(?:✓|✗|×|PASS|FAIL)\s+\S/m, /^\s*Tests?:\s+\d+/m),
  re('git-diff-hunk', /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m, /^diff --git /m),
  re('exit-code', /\bexit(?:ed)?(?: with)? (?:code|status)[:\s]+-?\d+/i),
];

export const EPHEMERAL_PATTERNS: NamedPattern[] = [
  re('tool-call-metadata', /^\s*\{\s*"(?:tool_use_id|tool_call_id|id)"\s*:\s*"(?:toolu_|call_)/, /^\s*\{\s*"type"\s*:\s*"tool_(?:use|result)"/),
  {
    kind: 'raw-search-results',
    test: (c) => {
      const lines = c.split('\n').filter((l) => l.trim().length > 0);
      if (lines.length < 3) return false;
      const hits = lines.filter((l) => /^(?:\.{0,2}\/)?[\w.@/-]+(?::\d+[:-]|\s*$)/.test(l.trim()) || /^https?:\/\/\S+/.test(l.trim()));
      return hits.length / lines.length >= 0.8;
    },
  },
  re('compilation-output', /^\s*(?:Compiling|Building|Bundling|Transpiling|Starting compilation|webpack compiled|Successfully compiled|\[\d+\/\d+\] (?:Compiling|Building|Linking))\b/im),
];

export const STRUCTURED_PATTERNS: NamedPattern[] = [
  re('decision-record', /^\s*(?:#+\s*)?(?:Decision|ADR[- ]?\d*|Decided)\b\s*[:\-—]/im, /\bwe (?:decided|agreed|chose) (?:to|on)\b/i, /\bdecision:\s/i),
  re('acceptance-criteria', /acceptance criteria/i, /^\s*(?:Given|When|Then|And)\s+\S.*$/m),
  re('task-list', /^\s*[-*] \[[ xX]\]\s+\S/m),
  re('schema', /^\s*CREATE TABLE\b/im, /^\s*(?:export\s+)?interface \w+\s*\{/m, /^\s*(?:export\s+)?type \w+\s*=\s*\{/m, /"\$schema"\s*:|"type"\s*:\s*"object"/, /\bz\.object\(/),
];

/** The weaker verbatim patterns: exact strings the agent must not paraphrase. */
export const VERBATIM_IDENTIFIER_PATTERNS: NamedPattern[] = [
  re('api-response', /^HTTP\/\d(?:\.\d)? \d{3}\b/m, /"(?:status|statusCode)"\s*:\s*[1-5]\d\d\b/),
  re('file-path', /(?:^|[\s'"`(=])(?:~|\.{1,2})?\/?(?:[\w.@-]+\/)+[\w.@-]+\.[A-Za-z0-9]{1,10}\b/m, /\b[A-Za-z]:\\(?:[\w .-]+\\)+[\w .-]+/),
  re(
    'declaration',
    /^\s*(?:export\s+)?(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*(?::[^=\n]+)?=/m,
    /^\s*(?:export\s+)?(?:async\s+)?(?:function|def|fn|func)\s+[A-Za-z_$][\w$]*\s*[(<]/m,
    /^\s*(?:export\s+)?(?:class|enum|struct)\s+[A-Z][\w$]*\b/m,
  ),
  re('version-number', /\bv?\d+\.\d+\.\d+(?:-[\w.]+)?\b/),
  re('environment-variable', /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+=/, /\$\{?[A-Z][A-Z0-9_]{2,}\}?/, /process\.env\.[A-Z_][A-Z0-9_]*/),
];

const COMPRESS_PATTERNS: NamedPattern[] = [
  re('alternatives-considered', /\b(?:alternatively|another option|option [a-c1-3]\b|instead of|we could also|trade-?offs?)\b/i),
  re('reasoning-chain', /\b(?:let me think|first,? |therefore|because|so that means|step \d)\b/i),
];

const SEARCH_TOOLS = new Set(['grep', 'glob', 'websearch', 'web_search', 'search', 'ls']);

export function classifyContextItem(item: ContextItemInput): Classification {
  if (item.category) return { category: item.category, kind: item.kind ?? 'caller-defined' };
  const c = item.content;
  if (item.source === 'tool_use') return { category: 'EPHEMERAL', kind: 'tool-call-metadata' };
  for (const p of VERBATIM_PATTERNS) if (p.test(c)) return { category: 'PRESERVE_VERBATIM', kind: p.kind };
  if (item.source === 'user') return { category: 'PRESERVE_VERBATIM', kind: 'user-requirement' };
  if (item.source === 'tool_result' && item.toolName && SEARCH_TOOLS.has(item.toolName.toLowerCase())) {
    return { category: 'EPHEMERAL', kind: 'raw-search-results' };
  }
  for (const p of EPHEMERAL_PATTERNS) if (p.test(c)) return { category: 'EPHEMERAL', kind: p.kind };
  for (const p of STRUCTURED_PATTERNS) if (p.test(c)) return { category: 'PRESERVE_STRUCTURED', kind: p.kind };
  for (const p of VERBATIM_IDENTIFIER_PATTERNS) if (p.test(c)) return { category: 'PRESERVE_VERBATIM', kind: p.kind };
  for (const p of COMPRESS_PATTERNS) if (p.test(c)) return { category: 'COMPRESS_AGGRESSIVE', kind: p.kind };
  return { category: 'COMPRESS_AGGRESSIVE', kind: 'discussion' };
}

/** Where each category lives (Requirement 2.3): every item starts in working memory; preserved ones also go to the session file. */
export type StorageTier = 'working-memory' | 'session-file' | 'learning-store';

export function tiersFor(category: ContextCategory): StorageTier[] {
  return category === 'PRESERVE_VERBATIM' || category === 'PRESERVE_STRUCTURED' ? ['working-memory', 'session-file'] : ['working-memory'];
}
