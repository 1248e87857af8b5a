import { reflectionJsonSchema } from '@headspace/contracts';
import { sessionToolNames, type ClaudePolicy } from './policy';

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
  /** A custom agent definition's body (`--agent`), under its name: the session runs as that agent. */
  agent?: { name: string; prompt: string };
  /** Manifest model (alias such as `sonnet` or a full model id); default `sonnet`. */
  model?: string;
  tools: readonly string[];
  /** Default `dontAsk`. */
  permissionMode?: string;
  /** Max budget in USD; default 0.50. */
  budgetUsd?: number;
  /** Task description with bead reference and context: the `-p` prompt. */
  task: string;
  /** Session id (a UUID) for a new session: `--session-id`. Ignored when `resume` is set. */
  sessionId?: string;
  /** Continue this earlier session: `--resume`. */
  resume?: string;
  /** false: no `--json-schema` (an answer that is not the reflection, e.g. a handoff document). Default true. */
  structuredOutput?: boolean;
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  maxTurns?: number;
  /** Owned paths, checkout confinement, denied commands and hooks, as settings + hook bridge. */
  policy?: ClaudePolicy;
  /**
   * Which settings files of the machine the CLI reads: `none` (default) keeps the user's own
   * settings, hooks and permissions out; `project` reads the checkout's `.claude/settings.json`.
   */
  settingSources?: 'none' | 'project';
}

/** What the runner adds to the argv at spawn time. */
export interface ClaudeArgsExtras {
  /** The generated settings file (`--settings`). */
  settingsPath?: string;
}

export const CLAUDE_SPAWN_DEFAULTS = { model: 'sonnet', permissionMode: 'dontAsk', budgetUsd: 0.5 } as const;

/**
 * The `--append-system-prompt` text. The seed builds it with `$(cat <<'PROMPT' … PROMPT)`, and
 * command substitution drops trailing newlines, so the text ends at the last protocol sentence.
 */
export function buildAppendSystemPrompt(spec: Pick<ClaudeSpawnSpec, 'name' | 'role' | 'owns' | 'learnings' | 'agent'>): string {
  return [
    `# Team Member: ${spec.name}`,
    `Role: ${spec.role}`,
    `Owns: ${spec.owns.join(', ')}`,
    '',
    ...(spec.agent ? [`## Agent: ${spec.agent.name}`, spec.agent.prompt.replace(/\n+$/, ''), ''] : []),
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

/**
 * The argv after `claude`, in the seed's order, then the session flags. Without a policy the
 * spec's tools are pre-approved with `--allowedTools`; with one, the generated settings allow them.
 * `--` ends the options: `--tools` and `--allowedTools` take several values and a task text
 * may start with `-`.
 */
export function buildClaudeArgs(spec: ClaudeSpawnSpec, extras: ClaudeArgsExtras = {}): string[] {
  const args = [
    '-p',
    '--append-system-prompt',
    buildAppendSystemPrompt(spec),
    '--model',
    spec.model ?? CLAUDE_SPAWN_DEFAULTS.model,
    '--tools',
    sessionToolNames(spec.tools).join(','),
  ];
  if (!spec.policy) args.push('--allowedTools', spec.tools.join(','));
  args.push(
    '--permission-mode',
    spec.permissionMode ?? CLAUDE_SPAWN_DEFAULTS.permissionMode,
    '--max-budget-usd',
    formatBudget(spec.budgetUsd ?? CLAUDE_SPAWN_DEFAULTS.budgetUsd),
    '--output-format',
    'stream-json',
    '--verbose',
    ...(spec.structuredOutput === false ? [] : ['--json-schema', JSON.stringify(reflectionJsonSchema)]),
    '--setting-sources',
    spec.settingSources === 'project' ? 'project' : '',
  );
  if (extras.settingsPath) args.push('--settings', extras.settingsPath);
  if (spec.effort) args.push('--effort', spec.effort);
  if (spec.maxTurns !== undefined) args.push('--max-turns', String(spec.maxTurns));
  if (spec.resume) args.push('--resume', spec.resume);
  else if (spec.sessionId) args.push('--session-id', spec.sessionId);
  args.push('--', spec.task);
  return args;
}
