import { setTimeout as sleep } from 'node:timers/promises';
import type { LockChecker } from '@headspace/agent-runtime';
import { listFileLocks, workspacePathSchema } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';

export interface NatsLockCheckerOptions {
  /** How long after a lock_file the checker waits for the lock table to show it (default 2000 ms). */
  settleMs?: number;
  /** Poll interval while waiting (default 25 ms, the projection's own poll). */
  pollMs?: number;
}

/** The team-manager's form of a path, so `./src/a.ts` and `src/a.ts` are one lock. */
export const lockPath = (path: string): string => {
  const parsed = workspacePathSchema.safeParse(path);
  return parsed.success ? parsed.data : path;
};

/**
 * Answers "does this agent hold the lock on this path?" from the team-manager's lock table
 * (`list-file-locks`). That table is a projection that trails the lock command by a few tens of
 * ms, so a write straight after lock_file could be refused for a lock the agent does hold: locks
 * this process just took are remembered, and only for those the checker waits (bounded) for the
 * table to catch up. The memory never answers by itself — a stale lock broken by a teammate, or
 * locks released elsewhere, are seen as the table shows them.
 */
export class NatsLockChecker implements LockChecker {
  private readonly settleMs: number;
  private readonly pollMs: number;
  /** `team\0holder\0path` → when this process took the lock. */
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly team: string,
    options: NatsLockCheckerOptions = {},
  ) {
    this.settleMs = options.settleMs ?? 2_000;
    this.pollMs = options.pollMs ?? 25;
  }

  noteAcquired(team: string, path: string, holder: string): void {
    this.recent.set(key(team, path, holder), Date.now());
  }

  noteReleased(team: string, path: string, holder: string): void {
    this.recent.delete(key(team, path, holder));
  }

  async holdsLock(path: string, agentId: string): Promise<boolean> {
    const normalised = lockPath(path);
    const k = key(this.team, normalised, agentId);
    for (;;) {
      const { locks } = await request(this.nc, listFileLocks, { team: this.team, holder: agentId });
      if (locks.some((l) => l.path === normalised)) {
        this.recent.delete(k);
        return true;
      }
      const takenAt = this.recent.get(k);
      if (takenAt === undefined) return false;
      if (Date.now() - takenAt >= this.settleMs) {
        this.recent.delete(k);
        return false;
      }
      await sleep(this.pollMs);
    }
  }
}

const key = (team: string, path: string, holder: string) => `${team}\u0000${holder}\u0000${lockPath(path)}`;
