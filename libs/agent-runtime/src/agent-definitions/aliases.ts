import { MODEL_TABLE } from '@headspace/llm';

/**
 * Seed 003 Requirement 8.4 model aliases and the tool aliases an agent file may use. Tool names
 * are the runtime's (Read, Write, Edit, Glob, Grep, Bash, …); patterns such as `Bash(git:*)` keep
 * their argument and get the canonical tool name.
 */

/** The aliases resolve through libs/llm's model table: one place names the current models. */
export const MODEL_ALIASES = {
  sonnet: MODEL_TABLE.sonnet.id,
  opus: MODEL_TABLE.opus.id,
  haiku: MODEL_TABLE.haiku.id,
} as const;

export type ModelAlias = keyof typeof MODEL_ALIASES | 'inherit';

/** `inherit` → the parent's model. */
export function resolveModelAlias(alias: ModelAlias, parentModel: string): string {
  return alias === 'inherit' ? parentModel : MODEL_ALIASES[alias];
}

const CANONICAL_TOOLS = ['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'Bash', 'WebFetch', 'WebSearch', 'Task', 'TodoWrite', 'NotebookEdit'];

export const TOOL_ALIASES: Record<string, string> = {
  ...Object.fromEntries(CANONICAL_TOOLS.map((t) => [t.toLowerCase(), t])),
  read_file: 'Read',
  file_read: 'Read',
  view: 'Read',
  write_file: 'Write',
  file_write: 'Write',
  edit_file: 'Edit',
  str_replace: 'Edit',
  shell: 'Bash',
  sh: 'Bash',
  search: 'Grep',
  find: 'Glob',
  fetch: 'WebFetch',
};

/** Groups an agent file may name instead of single tools. */
export const TOOL_GROUPS: Record<string, string[]> = {
  'read-only': ['Read', 'Glob', 'Grep'],
  readonly: ['Read', 'Glob', 'Grep'],
  all: ['*'],
  '*': ['*'],
};

/** Canonical names for a tool list: aliases resolved, groups expanded, duplicates dropped, order kept. */
export function resolveToolAliases(tools: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tools) {
    const group = TOOL_GROUPS[raw.toLowerCase()];
    const names = group ?? [resolveToolName(raw)];
    for (const n of names) if (!out.includes(n)) out.push(n);
  }
  return out;
}

export function resolveToolName(raw: string): string {
  const m = /^([A-Za-z_][\w-]*)(\(.*\))?$/.exec(raw.trim());
  if (!m) return raw.trim();
  const base = TOOL_ALIASES[m[1].toLowerCase()] ?? m[1];
  return `${base}${m[2] ?? ''}`;
}

/** Tools that can change the workspace (used by the reviewer write-access rule). */
export const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash', '*']);
