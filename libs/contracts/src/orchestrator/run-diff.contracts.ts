import { z } from 'zod';
import { defineQuery } from '../messages';
import { runIdSchema } from './run.contracts';

/** Largest patch text answered; a longer one is cut there (`truncated`). */
export const RUN_DIFF_MAX_PATCH_CHARS = 200_000;

/**
 * What one merge of a run changed: `git show` of a commit the run recorded as merged
 * (`run.task-merged`), read in the run's own checkout. Any other commit is not found.
 */
export const getRunDiff = defineQuery({
  service: 'orchestrator',
  name: 'get-run-diff',
  request: z.object({ runId: runIdSchema, commit: z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a commit id (7-64 lowercase hex)') }),
  response: z.object({
    runId: z.string(),
    commit: z.string(),
    taskKey: z.string(),
    files: z.array(z.object({ path: z.string(), additions: z.number().int().nullable(), deletions: z.number().int().nullable() })),
    patch: z.string(),
    truncated: z.boolean(),
  }),
});
