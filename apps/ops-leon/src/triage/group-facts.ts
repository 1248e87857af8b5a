import { Inject, Injectable } from '@nestjs/common';
import type { ExceptionLevel, ExceptionReport } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { GroupBrief } from './triage-prompt';

interface GroupRowData {
  type: string;
  title: string;
  culprit: string;
  level: ExceptionLevel;
  project: string;
  count: string;
  first_seen: Date;
  last_seen: Date;
  releases: string[];
  environments: string[];
  spiked_at: Date | null;
}

/**
 * What triage knows of a group, from the groups read model: counts, spread, its latest event
 * (message, handled, frames, platform). Triage informs a decision, it does not make one on a
 * stream, so a read model a moment behind is good enough; the lifecycle itself is read from the stream.
 */
@Injectable()
export class GroupFacts {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  /** The group's brief, or undefined while its row has not been projected yet. */
  async load(groupId: string, openedRelease: string | undefined, windowSeconds: number, nowMs: number): Promise<GroupBrief | undefined> {
    const { rows } = await this.pool.query<GroupRowData>(
      `SELECT type, title, culprit, level, project, count, first_seen, last_seen, releases, environments, spiked_at FROM ${this.q}.exception_groups WHERE group_id = $1`,
      [groupId],
    );
    const g = rows[0];
    if (!g) return undefined;
    const sample = await this.pool.query<{ report: ExceptionReport }>(`SELECT report FROM ${this.q}.exception_samples WHERE group_id = $1 ORDER BY seq DESC LIMIT 1`, [groupId]);
    const latest = sample.rows[0]?.report;
    const count = Number(g.count);
    const lifeMs = g.last_seen.getTime() - g.first_seen.getTime();
    // The mean rate over the group's life, per window: exact while it is younger than one window.
    const eventsInWindow = lifeMs <= windowSeconds * 1_000 ? count : Math.round((count * windowSeconds * 1_000) / lifeMs);
    return {
      type: g.type,
      title: g.title,
      culprit: g.culprit,
      message: latest?.message ?? g.title,
      level: g.level,
      ...(latest?.handled !== undefined ? { handled: latest.handled } : {}),
      ...(latest?.platform ? { platform: latest.platform } : {}),
      frames: (latest?.frames ?? []).filter((f) => f.inApp !== false).map((f) => ({ module: f.module, filename: f.filename, function: f.function })),
      eventsInWindow,
      windowSeconds,
      spiked: g.spiked_at !== null && nowMs - g.spiked_at.getTime() <= windowSeconds * 1_000,
      ...(openedRelease && (await this.projectHadOtherReleases(g.project, groupId, openedRelease, g.first_seen)) ? { newInRelease: openedRelease } : {}),
      count,
      firstSeen: g.first_seen.toISOString(),
      lastSeen: g.last_seen.toISOString(),
      releases: g.releases,
      environments: g.environments,
    };
  }

  /** A group new in a release: the project had reported from other releases before it first appeared. */
  private async projectHadOtherReleases(project: string, groupId: string, release: string, firstSeen: Date): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM ${this.q}.exception_groups WHERE project = $1 AND group_id <> $2 AND first_seen < $3 AND releases <> '{}' AND NOT ($4 = ANY (releases)) LIMIT 1`,
      [project, groupId, firstSeen, release],
    );
    return rows.length > 0;
  }
}
