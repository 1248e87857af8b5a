import type { AgentRuntime } from '@headspace/contracts';
import type { MergeResult } from '../workspace/run-workspace';

/** A session the run asks the orchestrator's session supervisor to run. */
export interface RunSessionStart {
  sessionId: string;
  team: string;
  persona: string;
  kind: 'task' | 'workshop' | 'review' | 'qa' | 'decomposition';
  runId: string;
  taskId?: string;
  model: string;
  effort: 'quick' | 'standard' | 'deep';
  prompt: string;
  workspace: string;
  situation: string;
  /** The run's runtime, when it names one; otherwise the member's or persona's decides. */
  runtime?: AgentRuntime;
  /** The tool allow-list (a custom agent's); none: the persona's manifest entry or the kind's default. */
  tools?: string[];
  /** A custom agent definition the session runs with (`--agent`): its prompt heads the system prompt, its turn limit caps the session's. */
  agent?: { name: string; systemPrompt: string; maxTurns?: number };
}

/**
 * Starts run sessions. Their outcome is not asked for: it comes back as the session's own events
 * in the store (`session.reflected`, `session.ended`), which the run process reads.
 */
export interface RunSessionsPort {
  /** True when the model is the offline simulator (shown to people as "simulated"). */
  readonly simulated: boolean;
  /** Records and launches the session (starting an existing session id again must be harmless). */
  start(start: RunSessionStart): Promise<void>;
}
export const RUN_SESSIONS = Symbol('RUN_SESSIONS');

/** The run's git workspace: an integration checkout plus one worktree per persona. Every operation is idempotent. */
export interface RunWorkspacePort {
  /** Makes (or reopens) the run's checkout from `source` (a git repository or a plain directory). */
  prepare(runId: string, source: string): Promise<{ dir: string; branch: string; baseCommit: string }>;
  worktreeFor(runId: string, persona: string): Promise<string>;
  commit(runId: string, persona: string, message: string): Promise<{ commit?: string; files: string[] }>;
  /** Merges the persona's branch into the run branch; a conflict is aborted and reported, never forced. */
  mergeTask(runId: string, persona: string, task: { id: string; subject: string }): Promise<MergeResult>;
  head(runId: string): Promise<string>;
  /** Writes files under `paths` of the integration checkout and commits them on the run branch, once per `message` (see RunWorkspace.commitFiles). */
  commitFiles(runId: string, message: string, paths: string[], write: (dir: string) => Promise<void>): Promise<{ commit?: string; files: string[] }>;
  /** A throwaway checkout of `commit` beside the run's worktrees (made afresh each time); `remove` takes it away. */
  checkoutAt(runId: string, commit: string, name: string): Promise<{ dir: string; remove(): Promise<void> }>;
}
export const RUN_WORKSPACE = Symbol('RUN_WORKSPACE');

/** Runs a fix run's test command on a commit of the run (fix-run/regression-check.ts). */
export interface RegressionCheckPort {
  /** Rejects when `signal` aborts it (the orchestrator stopping): an interrupted check is no result. */
  run(check: { runId: string; team: string; persona: string; commit: string; command: string; name: string }, signal?: AbortSignal): Promise<{ exitCode: number; timedOut: boolean; output: string }>;
}
export const RUN_CHECKS = Symbol('RUN_CHECKS');

export interface RunSettings {
  /** Where run checkouts and persona worktrees live. */
  workspacesDir: string;
  /** How often active runs are reconciled even without a triggering event. */
  sweepMs: number;
  /**
   * The lease of a run's claims on the team's task list (default 4 h). A claim held by a session
   * still at work is renewed by the sweep once a quarter of it has passed.
   */
  taskLeaseMs?: number;
}
export const RUN_SETTINGS = Symbol('RUN_SETTINGS');
