import { Global, Module } from '@nestjs/common';
import { costGovernorEvents, EventRegistry } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';

/** The cost-governor's event store, validating every event against its contract; injectable everywhere in the app. */
@Global()
@Module({
  providers: [
    {
      provide: EventStore,
      inject: [PG_POOL, SERVICE_SCHEMA],
      useFactory: (pool: Pool, schema: string) => new EventStore({ pool, schema, registry: new EventRegistry(costGovernorEvents) }),
    },
  ],
  exports: [EventStore],
})
export class CostGovernorStoreModule {}
