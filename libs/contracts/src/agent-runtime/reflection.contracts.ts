import { z } from 'zod';
import { boundedJsonObject, MODEL_JSON_BOUNDS } from '../json.contracts';

/**
 * The reflection every agent session ends with (seed 001 "Reflection Schema"). Field names and
 * enums are the seed's, snake_case included, because the same JSON is what `claude -p
 * --json-schema` returns. `skill_updates` is a Headspace extension (seed 000 §7.1): durable
 * capability lines the persona proposes for its skill file, and so is `task_result.output`, the
 * result of a run phase; the seed schema allows extra keys.
 */
export const reflectionStatuses = ['completed', 'partial', 'blocked', 'failed'] as const;
export const reflectionConfidences = ['high', 'medium', 'low'] as const;
export const learningCategories = ['codebase-pattern', 'gotcha', 'preference', 'cross-agent'] as const;
export type LearningCategory = (typeof learningCategories)[number];

export const suggestedLearningSchema = z
  .object({
    category: z.enum(learningCategories),
    content: z.string().trim().min(1).max(2_000),
    for_agent: z.string().trim().min(1).max(100).optional(),
  })
  .refine((l) => l.category !== 'cross-agent' || l.for_agent !== undefined, {
    message: 'for_agent is required when category is cross-agent',
    path: ['for_agent'],
  });
export type SuggestedLearning = z.output<typeof suggestedLearningSchema>;

export const reflectionSchema = z.object({
  task_result: z.object({
    status: z.enum(reflectionStatuses),
    summary: z.string().min(1).max(5_000),
    files_changed: z.array(z.string().min(1).max(1_000)).max(5_000),
    /** Headspace extension: what a run phase produced (a spec, tasks, a QA or review report); see apps/orchestrator/src/runs/run-output.ts. */
    output: boundedJsonObject(MODEL_JSON_BOUNDS).optional(),
  }),
  reflection: z.object({
    what_worked: z.string().max(10_000),
    what_didnt: z.string().max(10_000),
    confidence: z.enum(reflectionConfidences),
  }),
  suggested_learnings: z.array(suggestedLearningSchema).max(100),
  follow_up: z.object({
    blocked_by: z.string().max(5_000).optional(),
    suggested_next: z.string().max(5_000).optional(),
    needs_human: z.boolean(),
  }),
  skill_updates: z.array(z.string().trim().min(1).max(500)).max(20).optional(),
});
export type Reflection = z.output<typeof reflectionSchema>;

/** The seed's JSON Schema, verbatim, as passed to `claude -p --json-schema`. */
export const reflectionJsonSchema = {
  type: 'object',
  required: ['task_result', 'reflection', 'suggested_learnings', 'follow_up'],
  properties: {
    task_result: {
      type: 'object',
      required: ['status', 'summary', 'files_changed'],
      properties: {
        status: { type: 'string', enum: ['completed', 'partial', 'blocked', 'failed'] },
        summary: { type: 'string', description: '1-3 sentence summary of what was done' },
        files_changed: { type: 'array', items: { type: 'string' }, description: 'Paths of files created or modified' },
      },
    },
    reflection: {
      type: 'object',
      required: ['what_worked', 'what_didnt', 'confidence'],
      properties: {
        what_worked: { type: 'string', description: 'Techniques or approaches that went well' },
        what_didnt: { type: 'string', description: 'Issues encountered or suboptimal choices made' },
        confidence: { type: 'string', enum: ['high', 'medium', 'low'], description: 'Confidence in the quality of work produced' },
      },
    },
    suggested_learnings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['category', 'content'],
        properties: {
          category: { type: 'string', enum: ['codebase-pattern', 'gotcha', 'preference', 'cross-agent'] },
          content: { type: 'string', description: 'The learning to persist' },
          for_agent: { type: 'string', description: 'Target agent name if cross-agent, otherwise omit' },
        },
      },
    },
    follow_up: {
      type: 'object',
      required: ['needs_human'],
      properties: {
        blocked_by: { type: 'string', description: 'What is blocking further progress, if anything' },
        suggested_next: { type: 'string', description: 'Recommended next task or action' },
        needs_human: { type: 'boolean', description: 'Whether human input is needed to proceed' },
      },
    },
  },
} as const;
