import { Global, Module } from '@nestjs/common';
import { EventRegistry, opsLeonEvents } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';

/** ops-leon's event store, validating every event against its contract; injectable everywhere in the app. */
@Global()
@Module({
  providers: [
    {
      provide: EventStore,
      inject: [PG_POOL, SERVICE_SCHEMA],
      useFactory: (pool: Pool, schema: string) => new EventStore({ pool, schema, registry: new EventRegistry(opsLeonEvents) }),
    },
  ],
  exports: [EventStore],
})
export class OpsLeonStoreModule {}
