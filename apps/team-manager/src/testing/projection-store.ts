import { join } from 'node:path';
import { EventRegistry, teamManagerEvents } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, ProjectionSpec, type SpecProjection, type TestDatabase } from '@headspace/testing';

/** A fresh database with the team-manager's schema, and a given/when/then spec of the projection `create` makes on its store. */
export async function teamManagerProjectionSpec<P extends SpecProjection>(label: string, create: (store: EventStore) => P): Promise<{ db: TestDatabase; spec: ProjectionSpec<P> }> {
  const db = await createTestDatabase(label);
  await migrate(db.pool, { schema: 'team_manager', dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema: 'team_manager', registry: new EventRegistry(teamManagerEvents) });
  return { db, spec: ProjectionSpec.for(store, () => create(store)) };
}
