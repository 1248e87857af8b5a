import { Inject, Injectable } from '@nestjs/common';
import { groupEvents, type EventData, type exceptionReceived } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG, Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { AppConfig } from '../config';
import type { GroupEvent } from './group.decider';

type Received = RecordedEvent<EventData<typeof exceptionReceived>>;
/** A group's array columns keep at most this many distinct values. */
const MAX_SPREAD = 100;

/** What one batch adds to one group: folded in memory, written in one statement for all groups. */
interface Tally {
  group_id: string;
  project: string;
  project_id: string;
  fingerprint: string;
  type: string;
  level: string;
  n: number;
  first: string;
  last: string;
  releases: Set<string>;
  environments: Set<string>;
}

/**
 * Exception groups: counts, first/last seen, releases and environments from `exception.received`
 * (a storm of one fingerprint is one row updated once per batch, not once per event), the latest
 * HS_OPS_SAMPLE_EVENTS raw events per group, and the lifecycle with its timeline from `group.*`.
 * Tallies commute with lifecycle events (they touch other columns), so a batch's receipts are
 * written after its lifecycle events without changing the outcome.
 */
@Injectable()
export class GroupsProjection extends Projection {
  private readonly samples: number;

  constructor(store: EventStore, @Inject(APP_CONFIG) config: Pick<AppConfig, 'HS_OPS_SAMPLE_EVENTS'>) {
    super(store, { name: 'ops-groups', types: groupEvents.map((e) => e.type), tables: ['exception_groups', 'exception_samples', 'group_transitions'], batchSize: 1_000 });
    this.samples = config.HS_OPS_SAMPLE_EVENTS;
  }

  /**
   * In log order: each run of consecutive `exception.received` is tallied set-based, and flushed before
   * any other event, so a transition never lands before the reports that preceded it. (Tallying a whole
   * batch's reports after its other events made the rows depend on where batches split: a rebuild
   * from position 0 differed from live.)
   */
  protected override async handle(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    let received: Received[] = [];
    for (const event of events) {
      if (event.type === 'exception.received') {
        received.push(event as Received);
        continue;
      }
      if (received.length > 0) await this.tally(received, tx);
      received = [];
      await this.apply(event, tx);
    }
    if (received.length > 0) await this.tally(received, tx);
  }

  private async tally(events: Received[], tx: PoolClient): Promise<void> {
    const q = this.q;
    const tallies = new Map<string, Tally>();
    // Only the newest `samples` of each group in this batch can survive the trim below.
    const kept = new Map<string, Received[]>();
    for (const event of events) {
      const d = event.data;
      const at = d.receivedAt;
      const t = tallies.get(d.groupId);
      if (!t) {
        tallies.set(d.groupId, {
          group_id: d.groupId, project: d.project, project_id: d.projectId, fingerprint: d.fingerprint, type: d.report.type, level: d.report.level,
          n: 1, first: at, last: at, releases: new Set(d.report.release ? [d.report.release] : []), environments: new Set(d.report.environment ? [d.report.environment] : []),
        });
      } else {
        t.n++;
        if (at < t.first) t.first = at;
        if (at > t.last) t.last = at;
        if (d.report.release && t.releases.size < MAX_SPREAD) t.releases.add(d.report.release);
        if (d.report.environment && t.environments.size < MAX_SPREAD) t.environments.add(d.report.environment);
      }
      const list = kept.get(d.groupId) ?? kept.set(d.groupId, []).get(d.groupId)!;
      list.push(event);
      if (list.length > this.samples) list.shift();
    }
    await tx.query(
      `INSERT INTO ${q}.exception_groups AS g (group_id, project, project_id, fingerprint, type, title, level, count, first_seen, last_seen, releases, environments, updated_at)
       SELECT d.group_id, d.project, d.project_id, d.fingerprint, d.type, d.type, d.level, d.n, d.first, d.last, d.releases, d.environments, d.last
         FROM jsonb_to_recordset($1::jsonb) AS d (group_id text, project text, project_id text, fingerprint text, type text, level text, n bigint,
                                                  first timestamptz, last timestamptz, releases text[], environments text[])
       ON CONFLICT (group_id) DO UPDATE SET
         count = g.count + EXCLUDED.count,
         first_seen = least(g.first_seen, EXCLUDED.first_seen),
         last_seen = greatest(g.last_seen, EXCLUDED.last_seen),
         releases = (SELECT coalesce(array_agg(DISTINCT r ORDER BY r), '{}') FROM (SELECT unnest(g.releases || EXCLUDED.releases) AS r LIMIT ${MAX_SPREAD}) x),
         environments = (SELECT coalesce(array_agg(DISTINCT e ORDER BY e), '{}') FROM (SELECT unnest(g.environments || EXCLUDED.environments) AS e LIMIT ${MAX_SPREAD}) x),
         updated_at = greatest(g.updated_at, EXCLUDED.updated_at)`,
      [JSON.stringify([...tallies.values()].map((t) => ({ ...t, releases: [...t.releases].sort(), environments: [...t.environments].sort() })))],
    );
    if (this.samples === 0) return;
    const rows = [...kept.values()].flat().map((e) => ({ group_id: e.data.groupId, event_id: e.data.report.eventId, seq: e.globalPosition.toString(), received_at: e.data.receivedAt, report: e.data.report }));
    await tx.query(
      `INSERT INTO ${q}.exception_samples (group_id, event_id, seq, received_at, report)
       SELECT group_id, event_id, seq, received_at, report FROM jsonb_to_recordset($1::jsonb) AS d (group_id text, event_id text, seq bigint, received_at timestamptz, report jsonb)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
    await tx.query(
      `DELETE FROM ${q}.exception_samples s USING (
         SELECT group_id, event_id FROM (
           SELECT group_id, event_id, row_number() OVER (PARTITION BY group_id ORDER BY seq DESC) AS rank FROM ${q}.exception_samples WHERE group_id = ANY ($1::text[])
         ) ranked WHERE rank > $2) old
       WHERE s.group_id = old.group_id AND s.event_id = old.event_id`,
      [[...kept.keys()], this.samples],
    );
  }

  protected async apply(recorded: RecordedEvent, tx: PoolClient): Promise<void> {
    const event = recorded as RecordedEvent & GroupEvent;
    const q = this.q;
    const d = event.data;
    if (event.type === 'group.opened') {
      const o = event.data;
      await tx.query(
        `INSERT INTO ${q}.exception_groups AS g (group_id, project, project_id, fingerprint, type, title, culprit, level, first_seen, last_seen, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9)
         ON CONFLICT (group_id) DO UPDATE SET title = EXCLUDED.title, culprit = EXCLUDED.culprit, type = EXCLUDED.type`,
        [o.groupId, o.project, o.projectId, o.fingerprint, o.type, o.title, o.culprit, o.level, o.at],
      );
      await this.timeline(tx, event, null, 'NEW', 'leon', undefined, { firstEventId: o.firstEventId, title: o.title, culprit: o.culprit });
      return;
    }
    if (event.type === 'group.spiked') {
      const s = event.data;
      const { rows } = await tx.query<{ state: string }>(`UPDATE ${q}.exception_groups SET spiked_at = $2 WHERE group_id = $1 RETURNING state`, [s.groupId, s.at]);
      await this.timeline(tx, event, null, rows[0]?.state ?? 'NEW', 'leon', undefined, { count: s.count, baseline: s.baseline, factor: s.factor, windowSeconds: s.windowSeconds });
      return;
    }
    const t = d as Extract<GroupEvent, { data: { to: string } }>['data'];
    const { groupId: _g, project: _p, from, to, by, reason, at, ...details } = t;
    const triage = event.type === 'group.triaged' ? event.data : undefined;
    await tx.query(
      `UPDATE ${q}.exception_groups SET state = $2, updated_at = greatest(updated_at, $3)
         ${triage ? ', severity = $4, domain = $5, persona = $6, auto_fixable = $7' : ''} WHERE group_id = $1`,
      [t.groupId, to, at, ...(triage ? [triage.severity, triage.domain, triage.persona, triage.autoFixable] : [])],
    );
    await this.timeline(tx, event, from, to, by, reason, details);
  }

  private async timeline(tx: PoolClient, event: RecordedEvent, from: string | null, to: string, actor: string, reason: string | undefined, details: Record<string, unknown>) {
    const { groupId, at } = event.data as { groupId: string; at: string };
    await tx.query(
      `INSERT INTO ${this.q}.group_transitions (group_id, seq, type, from_state, to_state, actor, reason, details, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT DO NOTHING`,
      [groupId, event.globalPosition.toString(), event.type, from, to, actor, reason ?? null, JSON.stringify(details), at],
    );
  }
}
