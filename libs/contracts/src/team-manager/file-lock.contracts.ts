import { posix } from 'node:path';
import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from './team.contracts';

const holderSchema = z.string().min(1).max(200);

/**
 * A workspace-relative file path, normalised (`./src/../src/a.ts` → `src/a.ts`). Absolute paths and
 * paths that climb out of the workspace are refused: a lock can only ever guard a workspace file.
 */
export const workspacePathSchema = z
  .string()
  .min(1)
  .max(1_024)
  .refine((p) => !p.includes('\0'), 'must not contain NUL')
  .transform((p) => posix.normalize(p.replace(/\\/g, '/')).replace(/\/+$/, ''))
  .refine((p) => !posix.isAbsolute(p) && p !== '..' && !p.startsWith('../') && p !== '.', 'must be a file path inside the workspace');

export const fileLockStreamId = (team: string, path: string) => `filelock-${team}:${path}`;

const lockFields = { team: teamNameSchema, path: z.string(), holder: z.string() };

export const fileLockAcquired = defineEvent({
  service: 'team-manager',
  category: 'filelock',
  name: 'acquired',
  schema: z.object({ ...lockFields, acquiredAt: z.iso.datetime(), brokeStaleLockOf: z.string().optional() }),
});

export const fileLockRefreshed = defineEvent({
  service: 'team-manager',
  category: 'filelock',
  name: 'refreshed',
  schema: z.object({ ...lockFields, refreshedAt: z.iso.datetime() }),
});

export const fileLockReleased = defineEvent({
  service: 'team-manager',
  category: 'filelock',
  name: 'released',
  schema: z.object({ ...lockFields, releasedAt: z.iso.datetime(), reason: z.enum(['unlocked', 'task-completed']) }),
});

export const fileLockEvents = [fileLockAcquired, fileLockRefreshed, fileLockReleased];

const lockResult = z.object({ team: z.string(), path: z.string(), holder: z.string(), since: z.string(), brokeStaleLockOf: z.string().optional() });

export const lockFile = defineCommand({
  service: 'team-manager',
  name: 'lock-file',
  request: z.object({ team: teamNameSchema, path: workspacePathSchema, holder: holderSchema }),
  response: lockResult,
});

export const unlockFile = defineCommand({
  service: 'team-manager',
  name: 'unlock-file',
  request: z.object({ team: teamNameSchema, path: workspacePathSchema, holder: holderSchema }),
  response: z.object({ released: z.boolean() }),
});

/** Everything a teammate holds, released at once (its task completed). */
export const releaseHolderLocks = defineCommand({
  service: 'team-manager',
  name: 'release-holder-locks',
  request: z.object({ team: teamNameSchema, holder: holderSchema }),
  response: z.object({ released: z.array(z.string()) }),
});

export const listFileLocks = defineQuery({
  service: 'team-manager',
  name: 'list-file-locks',
  request: z.object({ team: teamNameSchema, holder: holderSchema.optional() }),
  response: z.object({ locks: z.array(z.object({ path: z.string(), holder: z.string(), since: z.string() })) }),
});
