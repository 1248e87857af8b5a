import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { learningCategories } from '../agent-runtime/reflection.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';

/**
 * The learning store (issue 25 scope 5, seed 003 Req 21): a learning is a record — the pattern met,
 * its resolution, a confidence in [0, 1], where it came from — on its own stream
 * `learning-<learningId>`. The learnings retrieved for a session are recorded once on
 * `learning-session-<sessionId>`, so the session's outcome can raise or lower exactly those.
 */
export const learningStreamId = (learningId: string) => `learning-${learningId}`;
export const learningSessionStreamId = (sessionId: string) => `learning-session-${sessionId}`;

export const learningIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
export const learningSourceKinds = ['session', 'ask', 'run', 'loop', 'manual'] as const;
/** Where a learning starts when nobody says otherwise: the middle, so one success or failure moves it visibly. */
export const DEFAULT_LEARNING_CONFIDENCE = 0.5;

const id = z.string().min(1).max(200);
const at = z.iso.datetime();
const confidence = z.number().min(0).max(1);
const persona = z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case persona id');
const project = z.string().trim().min(1).max(1_000);

export const learningSourceSchema = z.object({
  kind: z.enum(learningSourceKinds),
  /** The ask, run or loop id (none for a learning added by hand). */
  id: id.optional(),
  sessionId: id.optional(),
  /** The loop iteration that produced it (seed 003 Req 21.1 `source_iteration`). */
  iteration: z.number().int().min(1).optional(),
});
export type LearningSource = z.output<typeof learningSourceSchema>;

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'learning', name, schema });

export const learningRecorded = ev(
  'recorded',
  z.object({
    learningId: id,
    team: teamNameSchema,
    /** The workspace (project) it was learned in; none: it applies to every project of the team. */
    project: project.optional(),
    /** Whose learning it is; none: every persona's. */
    persona: persona.optional(),
    category: z.enum(learningCategories),
    pattern: z.string().min(1).max(2_000),
    resolution: z.string().max(2_000),
    confidence,
    source: learningSourceSchema,
    recordedAt: at,
  }),
);

/** A session that was given the learning completed: confidence raised to `confidence`. */
export const learningReinforced = ev('reinforced', z.object({ learningId: id, sessionId: id, confidence, at }));
/** A session that was given the learning failed: confidence lowered to `confidence`. */
export const learningWeakened = ev('weakened', z.object({ learningId: id, sessionId: id, confidence, at }));
/** The learnings injected into a session's prompt, in rank order (once per session). */
export const learningsGiven = ev('given', z.object({ sessionId: id, team: teamNameSchema, learningIds: z.array(id).max(100), at }));

export const learningEvents = [learningRecorded, learningReinforced, learningWeakened, learningsGiven];

// ---- requests -----------------------------------------------------------------------------------

export const recordLearning = defineCommand({
  service: 'orchestrator',
  name: 'record-learning',
  request: z.object({
    learningId: learningIdSchema.optional(),
    team: teamNameSchema,
    pattern: z.string().trim().min(1).max(2_000),
    resolution: z.string().trim().max(2_000).default(''),
    category: z.enum(learningCategories).default('codebase-pattern'),
    project: project.optional(),
    persona: persona.optional(),
    confidence: confidence.default(DEFAULT_LEARNING_CONFIDENCE),
    iteration: z.number().int().min(1).optional(),
  }),
  response: z.object({ learningId: z.string(), streamVersion: z.string() }),
});

export const learningViewSchema = z.object({
  learningId: z.string(),
  team: z.string(),
  project: z.string().nullable(),
  persona: z.string().nullable(),
  category: z.enum(learningCategories),
  pattern: z.string(),
  resolution: z.string(),
  confidence: z.number(),
  source: learningSourceSchema,
  reinforced: z.number().int(),
  weakened: z.number().int(),
  createdAt: z.string(),
  /** When a session's outcome last moved its confidence. */
  usedAt: z.string().nullable(),
});
export type LearningView = z.output<typeof learningViewSchema>;

export const getLearning = defineQuery({ service: 'orchestrator', name: 'get-learning', request: z.object({ learningId: id }), response: learningViewSchema });

export const rankedLearningSchema = learningViewSchema.omit({ reinforced: true, weakened: true }).extend({
  /** Full-text relevance to `q` (`ts_rank_cd`, normalised to [0, 1)); 1 without `q`. */
  relevance: z.number(),
  /** What the list is ordered by: relevance × confidence. */
  score: z.number(),
  uses: z.number().int(),
});
export type RankedLearning = z.output<typeof rankedLearningSchema>;

export const searchLearnings = defineQuery({
  service: 'orchestrator',
  name: 'search-learnings',
  request: z.object({
    team: teamNameSchema,
    /** Web-search syntax (`websearch_to_tsquery`): words, "quoted phrases", -excluded, or. */
    q: z.string().trim().min(1).max(2_000).optional(),
    /** The project filter is a path: the gateway's `project` parameter rule (≤ 200 characters) applies. */
    project: z.string().trim().min(1).max(200).optional(),
    persona: persona.optional(),
    limit: z.number().int().min(1).max(200).default(20),
  }),
  response: z.object({ learnings: z.array(rankedLearningSchema) }),
});
