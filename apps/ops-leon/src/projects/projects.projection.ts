import { Injectable } from '@nestjs/common';
import { projectEvents } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import { REMEDIATION_DEFAULTS, type ProjectEvent } from './project.decider';

/** team, test_command, verify_window_seconds: events recorded before these settings existed get the defaults. */
const remediationColumns = (d: { team?: string; testCommand?: string; verifyWindowSeconds?: number }) => [
  d.team ?? null,
  d.testCommand ?? REMEDIATION_DEFAULTS.testCommand,
  d.verifyWindowSeconds ?? REMEDIATION_DEFAULTS.verifyWindowSeconds,
];

/** Projects and their ingest keys for listing. Ingest checks keys on the project stream, not here. */
@Injectable()
export class ProjectsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'ops-projects', types: projectEvents.map((e) => e.type), tables: ['projects', 'ingest_keys'] });
  }

  protected async apply(recorded: RecordedEvent, tx: PoolClient): Promise<void> {
    const event = recorded as RecordedEvent & ProjectEvent;
    const q = this.q;
    switch (event.type) {
      case 'project.created': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.projects (project, project_id, display_name, repository, trusted, environments, team, test_command, verify_window_seconds, created_by, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) ON CONFLICT (project) DO NOTHING`,
          [d.project, d.projectId, d.displayName, d.repository, d.trusted, JSON.stringify(d.environments), ...remediationColumns(d), d.createdBy, d.at],
        );
        return;
      }
      case 'project.updated': {
        const d = event.data;
        await tx.query(
          `UPDATE ${q}.projects SET display_name = $2, repository = $3, trusted = $4, environments = $5, team = $6, test_command = $7, verify_window_seconds = $8, updated_at = $9
            WHERE project = $1`,
          [d.project, d.displayName, d.repository, d.trusted, JSON.stringify(d.environments), ...remediationColumns(d), d.at],
        );
        return;
      }
      case 'project.ingest-key-created': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.ingest_keys (key_id, project, hint, label, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key_id) DO NOTHING`,
          [d.keyId, d.project, d.hint, d.label, d.createdBy, d.at],
        );
        await tx.query(`UPDATE ${q}.projects SET active_keys = active_keys + 1 WHERE project = $1`, [d.project]);
        return;
      }
      case 'project.ingest-key-revoked':
        await tx.query(`UPDATE ${q}.ingest_keys SET revoked_at = $2 WHERE key_id = $1`, [event.data.keyId, event.data.at]);
        await tx.query(`UPDATE ${q}.projects SET active_keys = active_keys - 1 WHERE project = $1`, [event.data.project]);
        return;
      case 'project.registered':
        return;
    }
  }
}
