import { Injectable } from '@nestjs/common';
import { learningEvents, type EventData, type learningRecorded, type learningReinforced, type learningsGiven } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/** The learnings table: a row per learning, its confidence as the last outcome left it, and how often it was given. */
@Injectable()
export class LearningsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'learnings', types: learningEvents.map((e) => e.type), tables: ['learnings'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    const table = this.qualified('learnings');
    switch (event.type) {
      case 'learning.recorded': {
        const r = event.data as EventData<typeof learningRecorded>;
        await tx.query(
          `INSERT INTO ${table} (learning_id, team, project, persona, category, pattern, resolution, confidence, source, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (learning_id) DO NOTHING`,
          [r.learningId, r.team, r.project ?? null, r.persona ?? null, r.category, r.pattern, r.resolution, r.confidence, JSON.stringify(r.source), r.recordedAt],
        );
        return;
      }
      case 'learning.reinforced':
      case 'learning.weakened': {
        const o = event.data as EventData<typeof learningReinforced>;
        await tx.query(`UPDATE ${table} SET confidence = $2, used_at = $3 WHERE learning_id = $1`, [o.learningId, o.confidence, o.at]);
        return;
      }
      case 'learning.given': {
        const g = event.data as EventData<typeof learningsGiven>;
        if (g.learningIds.length === 0) return;
        await tx.query(`UPDATE ${table} SET uses = uses + 1, used_at = greatest(used_at, $2) WHERE learning_id = ANY($1::text[])`, [g.learningIds, g.at]);
        return;
      }
    }
  }
}
