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
}

/** The outcome of a session as recorded in its stream, once it has ended. */
export interface RunSessionOutcome {
  exitReason: string;
  summary: string;
  filesModified: string[];
  reflection?: Record<string, unknown>;
}

export interface RunSessionsPort {
  /** True when the model is the offline simulator (shown to people as "simulated"). */
  readonly simulated: boolean;
  /** Starts (or, if it exists already, makes sure it runs) a session. */
  start(start: RunSessionStart): Promise<void>;
  /** The outcome when the session has ended, else undefined. */
  outcome(sessionId: string): Promise<RunSessionOutcome | undefined>;
}
export const RUN_SESSIONS = Symbol('RUN_SESSIONS');

export interface RunSettings {
  /** Where run checkouts and persona worktrees live. */
  workspacesDir: string;
  /** How often active runs are reconciled even without a triggering event. */
  sweepMs: number;
}
export const RUN_SETTINGS = Symbol('RUN_SETTINGS');
