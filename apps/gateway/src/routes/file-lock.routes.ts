import { listFileLocks, lockFile, pageQuerySchema, releaseHolderLocks, unlockFile } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'file-locks';

/** File paths contain `/`, so they travel in bodies and query strings, never in the URL path. */
export const fileLockRoutes: ApiRoute[] = [
  commandRoute(lockFile, {
    operationId: 'lockFile',
    path: '/api/v1/teams/:team/locks',
    tag,
    summary: 'Lock a workspace file (refreshes the holder’s own lock, breaks a stale one)',
  }),
  commandRoute(unlockFile, {
    operationId: 'unlockFile',
    path: '/api/v1/teams/:team/locks/unlock',
    tag,
    summary: 'Unlock a file the holder holds',
  }),
  commandRoute(releaseHolderLocks, {
    operationId: 'releaseHolderLocks',
    path: '/api/v1/teams/:team/holders/:holder/locks/release',
    tag,
    summary: 'Release every lock a holder holds',
  }),
  queryRoute(listFileLocks, {
    operationId: 'listFileLocks',
    path: '/api/v1/teams/:team/locks',
    tag,
    summary: 'Locks held in the team, optionally by one holder',
    query: pageQuerySchema.extend({ holder: z.string().min(1).max(200).optional() }),
    list: { field: 'locks', key: (l: { path: string }) => l.path },
  }),
];
