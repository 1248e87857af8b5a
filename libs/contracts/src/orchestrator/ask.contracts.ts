import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { effortLevelSchema, taskSignalsSchema } from '../cost-governor/routing.contracts';
import { modelTierSchema } from '../cost-governor/price.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { agentSnapshotSchema } from './agents.contracts';
import { runSourceSchema } from './run-source';
import { sessionUsageSchema } from './session.contracts';

/**
 * An ask: one agent on one request (issue 24, the single-agent topology) — no workshop, no
 * decomposition. Its stream `ask-<askId>` records the routing decision, the one session it ran and
 * the outcome; the orchestrator resumes an ask from it after a crash.
 */
export const askStreamId = (askId: string) => `ask-${askId}`;

export const askIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
export const askStatuses = ['running', 'completed', 'failed'] as const;

const id = z.string().min(1).max(200);
const at = z.iso.datetime();
const files = z.array(z.string().max(1_000)).max(1_000);

/** How a session's (an ask's, a run session's) model and effort were chosen: the governor's decision on the prompt's signals, or the operator's pin. */
export const askRoutingSchema = z.object({
  model: z.string().min(1).max(100),
  tier: modelTierSchema,
  effort: effortLevelSchema,
  thinkingBudgetTokens: z.number().int().nonnegative(),
  /** The governor's reasons, after what the prompt told (e.g. `names 1 file: README.md`). */
  reasons: z.array(z.string().max(500)).max(30),
  signals: taskSignalsSchema,
  /** True when the operator named `model` or `effort`, or the custom agent run names its model. */
  pinned: z.boolean(),
  /** Who pinned it: the operator (`model`/`effort` of the request) or the agent definition's `model`. */
  pinnedBy: z.enum(['operator', 'agent']).optional(),
  /** True when the cost governor could not answer and the built-in default was used (runs). */
  fallback: z.boolean().optional(),
});
export type AskRouting = z.output<typeof askRoutingSchema>;
/** The same record for a run's session (`run.session-started`). */
export const sessionRoutingSchema = askRoutingSchema;
export type SessionRouting = AskRouting;

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'ask', name, schema });

export const askStarted = ev(
  'started',
  z.object({
    askId: id,
    team: teamNameSchema,
    prompt: z.string().min(1).max(20_000),
    /** sha256 of the prompt, for finding the same request again without reading it. */
    promptDigest: z.string().length(64),
    /** The persona the session runs as (`agent` resolved, or the default builder). */
    persona: id,
    /** What the operator asked for with `--agent`, as given. */
    agent: id.optional(),
    /** The custom agent definition `agent` named (project > user > shipped templates), as it was then; none: a persona. */
    agentDefinition: agentSnapshotSchema.optional(),
    /** The git URL or directory (under HS_SOURCE_ROOTS) the agent works on a branch of. */
    workspace: z.string().min(1).max(4_096),
    routing: askRoutingSchema,
    simulated: z.boolean(),
    startedAt: at,
  }),
);

/** The ask's checkout was made and its one session started in its worktree. */
export const askSessionStarted = ev(
  'session-started',
  z.object({
    askId: id,
    sessionId: id,
    persona: id,
    dir: z.string().max(4_096),
    branch: z.string().max(300),
    baseCommit: z.string().max(64),
    worktree: z.string().max(4_096),
    at,
  }),
);

export const askCompleted = ev(
  'completed',
  z.object({
    askId: id,
    sessionId: id,
    /** The agent's final answer (its reflection block removed). */
    result: z.string().max(20_000),
    /** Files that differ between the base commit and `commit`. */
    filesChanged: files,
    /** The checkout holding the result, its branch and the branch head (the agent's work merged in). */
    dir: z.string().max(4_096),
    branch: z.string().max(300),
    commit: z.string().max(64),
    /** USD at the price table's rates for the recorded usage of each model call (decimal string). */
    costUsd: z.string().max(40),
    usage: sessionUsageSchema,
    turns: z.number().int().nonnegative(),
    at,
  }),
);

export const askFailed = ev('failed', z.object({ askId: id, sessionId: id.optional(), reason: z.string().min(1).max(5_000), costUsd: z.string().max(40).optional(), at }));

export const askEvents = [askStarted, askSessionStarted, askCompleted, askFailed];

// ---- requests -----------------------------------------------------------------------------------

export const startAsk = defineCommand({
  service: 'orchestrator',
  name: 'start-ask',
  request: z.object({
    askId: askIdSchema.optional(),
    team: teamNameSchema,
    prompt: z.string().trim().min(1).max(20_000),
    /** A git URL or a directory under the orchestrator's HS_SOURCE_ROOTS (the same policy as a run's source). */
    workspace: runSourceSchema,
    /** The agent to run: a custom agent definition of the workspace's project or the user, else a persona id; none: the default builder. */
    agent: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case agent name').optional(),
    /** Pins the model (id or alias) instead of routing. */
    model: z.string().min(1).max(100).optional(),
    /** Pins the thinking effort instead of routing. */
    effort: effortLevelSchema.optional(),
  }),
  response: z.object({ askId: z.string(), streamVersion: z.string(), routing: askRoutingSchema }),
});

export const askViewSchema = z.object({
  askId: z.string(),
  team: z.string(),
  status: z.enum(askStatuses),
  prompt: z.string(),
  persona: z.string(),
  agent: z.string().nullable(),
  workspace: z.string(),
  routing: askRoutingSchema,
  simulated: z.boolean(),
  sessionId: z.string().nullable(),
  result: z.string().nullable(),
  filesChanged: z.array(z.string()),
  dir: z.string().nullable(),
  branch: z.string().nullable(),
  commit: z.string().nullable(),
  costUsd: z.string().nullable(),
  usage: sessionUsageSchema.nullable(),
  turns: z.number().int().nullable(),
  failure: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type AskView = z.output<typeof askViewSchema>;

export const getAsk = defineQuery({ service: 'orchestrator', name: 'get-ask', request: z.object({ askId: id }), response: askViewSchema });

export const listAsks = defineQuery({
  service: 'orchestrator',
  name: 'list-asks',
  request: z.object({ team: teamNameSchema, limit: z.number().int().min(1).max(200).default(50) }),
  response: z.object({
    asks: z.array(askViewSchema.pick({ askId: true, team: true, status: true, persona: true, startedAt: true, endedAt: true }).extend({ model: z.string(), costUsd: z.string().nullable() })),
  }),
});
