import { reflectionJsonSchema } from '@headspace/contracts';

/**
 * Seed 001 spawn protocol: the orchestrator runs `claude -p` for a team member with its role,
 * owned paths, learnings and the reflection protocol appended to Claude Code's own system prompt,
 * and the task as the prompt argument. This module builds that argv exactly; `run.ts` runs it.
 */
export interface ClaudeSpawnSpec {
  /** Team member name (manifest `name`). */
  name: string;
  role: string;
  owns: readonly string[];
  /** Contents of the member's learnings.md (empty string when none yet). */
  learnings: string;
  /** Manifest model (alias such as `sonnet` or a full model id); default `sonnet`. */
  model?: string;
  tools: readonly string[];
  /** Default `dontAsk`. */
  permissionMode?: string;
  /** Max budget in USD; default 0.50. */
  budgetUsd?: number;
  /** Task description with bead reference and context: the `-p` prompt. */
  task: string;
}

export const CLAUDE_SPAWN_DEFAULTS = { model: 'sonnet', permissionMode: 'dontAsk', budgetUsd: 0.5 } as const;

/**
 * The `--append-system-prompt` text. The seed builds it with `$(cat <<'PROMPT' … PROMPT)`, and
 * command substitution drops trailing newlines, so the text ends at the last protocol sentence.
 */
export function buildAppendSystemPrompt(spec: Pick<ClaudeSpawnSpec, 'name' | 'role' | 'owns' | 'learnings'>): string {
  return [
    `# Team Member: ${spec.name}`,
    `Role: ${spec.role}`,
    `Owns: ${spec.owns.join(', ')}`,
    '',
    '## Your Accumulated Learnings',
    spec.learnings.replace(/\n+$/, ''),
    '',
    '## Reflection Protocol',
    'After completing your task, return structured JSON matching the reflection schema.',
    'Include honest self-assessment in the reflection section.',
    'Suggest learnings that should be persisted for future spawns.',
  ].join('\n');
}

/** Budget as the manifest writes it (`0.50`). */
export function formatBudget(usd: number): string {
  return usd.toFixed(2);
}

/** The argv after `claude`, in the seed's order. */
export function buildClaudeArgs(spec: ClaudeSpawnSpec): string[] {
  return [
    '-p',
    '--append-system-prompt',
    buildAppendSystemPrompt(spec),
    '--model',
    spec.model ?? CLAUDE_SPAWN_DEFAULTS.model,
    '--allowedTools',
    spec.tools.join(','),
    '--permission-mode',
    spec.permissionMode ?? CLAUDE_SPAWN_DEFAULTS.permissionMode,
    '--max-budget-usd',
    formatBudget(spec.budgetUsd ?? CLAUDE_SPAWN_DEFAULTS.budgetUsd),
    '--output-format',
    'json',
    '--json-schema',
    JSON.stringify(reflectionJsonSchema),
    '--no-session-persistence',
    spec.task,
  ];
}
