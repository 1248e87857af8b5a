import { Injectable } from '@nestjs/common';
import { pluginEvents, type EventData, type pluginEnabled, type pluginInstalled } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/** The plugins of each team: one row per installed plugin with its parts and whether it is enabled, written from each event alone. */
@Injectable()
export class PluginsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'plugins', types: pluginEvents.map((e) => e.type), tables: ['plugins'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    const { team, plugin } = event.data as EventData<typeof pluginEnabled>;
    switch (event.type) {
      case 'plugin.installed': {
        const i = event.data as EventData<typeof pluginInstalled>;
        // An upgrade replaces the row; whether it stays disabled is the next event's to say.
        await tx.query(
          `INSERT INTO ${this.q}.plugins (team, plugin, version, description, source, commit, content_hash, dir, parts, enabled, installed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10)
           ON CONFLICT (team, plugin) DO UPDATE SET version = $3, description = $4, source = $5, commit = $6, content_hash = $7, dir = $8, parts = $9, enabled = true, installed_at = $10`,
          [team, plugin, i.version, i.description ?? null, i.source, i.commit, i.contentHash, i.dir, JSON.stringify(i.parts), i.at],
        );
        return;
      }
      case 'plugin.enabled':
      case 'plugin.disabled':
        await tx.query(`UPDATE ${this.q}.plugins SET enabled = $3 WHERE team = $1 AND plugin = $2`, [team, plugin, event.type === 'plugin.enabled']);
        return;
      case 'plugin.removed':
        await tx.query(`DELETE FROM ${this.q}.plugins WHERE team = $1 AND plugin = $2`, [team, plugin]);
        return;
    }
  }
}
