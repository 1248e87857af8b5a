import { join } from 'node:path';
import { EventRegistry, runEvents, sessionEvents } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, ProjectionSpec, type SpecProjection, type TestDatabase } from '@headspace/testing';

/** A fresh database with the orchestrator's schema, and a given/when/then spec of the projection `create` makes on its store. */
export async function orchestratorProjectionSpec<P extends SpecProjection>(label: string, create: (store: EventStore) => P): Promise<{ db: TestDatabase; spec: ProjectionSpec<P> }> {
  const db = await createTestDatabase(label);
  await migrate(db.pool, { schema: 'orchestrator', dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema: 'orchestrator', registry: new EventRegistry([...sessionEvents, ...runEvents]) });
  return { db, spec: ProjectionSpec.for(store, () => create(store)) };
}
