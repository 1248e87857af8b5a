import { join } from 'node:path';
import { costGovernorEvents, EventRegistry } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, ProjectionSpec, type SpecProjection, type TestDatabase } from '@headspace/testing';

/** A fresh database with the cost-governor's schema, and a given/when/then spec of the projection `create` makes on its store. */
export async function costGovernorProjectionSpec<P extends SpecProjection>(label: string, create: (store: EventStore) => P): Promise<{ db: TestDatabase; spec: ProjectionSpec<P> }> {
  const db = await createTestDatabase(label);
  await migrate(db.pool, { schema: 'cost_governor', dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema: 'cost_governor', registry: new EventRegistry(costGovernorEvents) });
  return { db, spec: ProjectionSpec.for(store, () => create(store)) };
}
