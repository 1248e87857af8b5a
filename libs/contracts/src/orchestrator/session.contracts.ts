import { z } from 'zod';
import { defineEvent } from '../messages';
import { manifestToolSchema, ownsGlobSchema } from '../team-manager/manifest.contracts';
import { agentRuntimeSchema } from './runtime.contracts';

export * from './runtime.contracts';

/**
 * An agent session ("shift"): one persona, one task or workshop, one model, run by the orchestrator.
 * Its stream `session-<sessionId>` records every step, so a restarted orchestrator rebuilds the
 * conversation and resumes it without repeating a completed tool call's side effect.
 */
export const sessionStreamId = (sessionId: string) => `session-${sessionId}`;

export const sessionKinds = ['task', 'workshop', 'review', 'qa', 'decomposition'] as const;
export const sessionExitReasons = ['completed', 'max_turns', 'handoff', 'budget_paused', 'budget_stopped', 'error', 'cancelled'] as const;

const id = z.string().min(1).max(200);
const at = z.iso.datetime();

export const sessionUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheWrite5mTokens: z.number().int().nonnegative(),
  cacheWrite1hTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
});
export type SessionUsage = z.output<typeof sessionUsageSchema>;

/** Anthropic content blocks as the model returned them (kept whole: the conversation is rebuilt from them). */
const contentBlocks = z.array(z.record(z.string(), z.unknown())).max(200);

export const sessionStarted = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'started',
  schema: z.object({
    sessionId: id,
    team: id,
    persona: id,
    kind: z.enum(sessionKinds),
    runId: id.optional(),
    taskId: id.optional(),
    model: id,
    effort: z.enum(['quick', 'standard', 'deep']),
    runtime: agentRuntimeSchema,
    simulated: z.boolean(),
    /** The session whose handoff this one continues. */
    continuesSession: id.optional(),
    /** The first user message (task, handoff and mail already composed in). */
    prompt: z.string().max(400_000),
    /** Absolute directory the session's tools work in (a git worktree); none: a session without workspace tools. */
    workspace: z.string().max(4_096).optional(),
    /** What kind of work this is, named in the system prompt (`Situation: …`) — and the simulator's scenario key. */
    situation: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/).optional(),
    /**
     * The tool allowlist this session runs under, team-manifest style (`Read`, `Bash(git:*)`); none:
     * the persona's manifest entry (builder sessions) or what the kind of session allows.
     */
    tools: z.array(manifestToolSchema).max(100).optional(),
    /** Globs the session may write without a lock (manifest `owns`); none: as for `tools`. */
    ownedPaths: z.array(ownsGlobSchema).max(100).optional(),
    /** A subagent's session: the lead session whose `agent__<name>` tool call started it (its persona is the agent's name). */
    parentSessionId: id.optional(),
    /**
     * An ask's or a run's session running a custom agent definition (`--agent`): its body heads the
     * system prompt and its turn limit caps the session's (its tools and model are in `tools`/`model`).
     */
    agent: z.object({ name: id, systemPrompt: z.string().max(100_000), maxTurns: z.number().int().positive().optional() }).optional(),
    startedAt: at,
  }),
});

export const sessionModelCalled = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'model-called',
  schema: z.object({
    sessionId: id,
    turn: z.number().int().positive(),
    model: id,
    stopReason: z.string().max(50),
    content: contentBlocks,
    usage: sessionUsageSchema,
    /** Mail injected into this turn's prompt (already marked read in the team-manager). */
    injectedMessageIds: z.array(id).max(500).default([]),
    /** Their `<teammate-message>` rendering, added to the user turn this call answered. */
    injectedText: z.string().max(200_000).optional(),
    durationMs: z.number().nonnegative(),
    at,
  }),
});

export const sessionToolCalled = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'tool-called',
  schema: z.object({
    sessionId: id,
    turn: z.number().int().positive(),
    toolUseId: id,
    tool: id,
    isError: z.boolean(),
    /** What the model sees as the tool_result (capped by the tool itself). */
    content: z.string().max(200_000),
    filesModified: z.array(z.string().max(1_000)).max(1_000).default([]),
    /** Hook decisions taken around this call, in order. */
    hooks: z.array(z.object({ event: z.string(), decision: z.string(), reason: z.string().max(2_000).optional() })).max(50).default([]),
    durationMs: z.number().nonnegative(),
    at,
  }),
});

export const sessionBudgetDecided = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'budget-decided',
  schema: z.object({
    sessionId: id,
    turn: z.number().int().positive(),
    decision: z.enum(['allowed', 'downgraded', 'paused', 'stopped']),
    model: id,
    /** The thinking effort the governor routed the call at. */
    effort: z.enum(['quick', 'standard', 'deep']).optional(),
    /** The governor's worst-case reservation for the call: settled by its usage, or released if the call fails. */
    reservationId: z.string().max(100).optional(),
    reason: z.string().max(1_000).optional(),
    at,
  }),
});

export const sessionHandedOff = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'handed-off',
  schema: z.object({
    sessionId: id,
    /** The handoff artefact (seed 000 §6.3), validated by the runtime before it is recorded. */
    handoff: z.record(z.string(), z.unknown()),
    contextUsedPercent: z.number().min(0).max(100),
    at,
  }),
});

export const sessionReflected = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'reflected',
  schema: z.object({
    sessionId: id,
    reflection: z.record(z.string(), z.unknown()).optional(),
    malformed: z.boolean(),
    raw: z.string().max(50_000).optional(),
    at,
  }),
});

export const sessionEnded = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'ended',
  schema: z.object({
    sessionId: id,
    exitReason: z.enum(sessionExitReasons),
    summary: z.string().max(20_000),
    turns: z.number().int().nonnegative(),
    usage: sessionUsageSchema,
    toolsUsed: z.array(z.string()).max(200),
    filesModified: z.array(z.string().max(1_000)).max(5_000),
    error: z.string().max(5_000).optional(),
    at,
  }),
});

/**
 * The session compacted its conversation (seed 003 Req 2.4–2.12): the turns so far are replaced by
 * the model's summary plus the items triage preserved verbatim; the conversation carries on from
 * them. PreCompact hooks (the built-in backup) ran first and the session-state file was written.
 */
export const sessionCompacted = defineEvent({
  service: 'orchestrator',
  category: 'session',
  name: 'compacted',
  schema: z.object({
    sessionId: id,
    /** The last turn the summary covers; the next turn starts from the summary. */
    turn: z.number().int().positive(),
    trigger: z.enum(['auto', 'manual']),
    /** The model that wrote the summary. */
    model: id,
    summary: z.string().min(1).max(100_000),
    /** PRESERVE_VERBATIM / PRESERVE_STRUCTURED items of the compacted turns, rendered for the model. */
    preserved: z.string().max(100_000).optional(),
    preservedItems: z.number().int().nonnegative(),
    /** The session-state file written before compaction (workspace-relative). */
    sessionFile: z.string().max(1_000),
    /** Context tokens of the last turn before compaction, and the threshold (percent of the working window) it crossed. */
    contextTokens: z.number().int().nonnegative(),
    thresholdPercent: z.number().min(1).max(100),
    /** The summarising call's usage (counted in the session's usage). */
    usage: sessionUsageSchema,
    at,
  }),
});

export const sessionEvents = [sessionStarted, sessionModelCalled, sessionToolCalled, sessionBudgetDecided, sessionHandedOff, sessionReflected, sessionEnded, sessionCompacted];
