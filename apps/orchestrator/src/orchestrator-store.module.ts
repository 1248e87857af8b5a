import { Global, Module } from '@nestjs/common';
import { askEvents, batchEvents, EventRegistry, loopEvents, pluginEvents, runEvents, sessionEvents, skillEvents, workflowEvents, requestEvents, learningEvents, evalEvents } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';

/** The orchestrator's event store (agent sessions, runs), validating every event against its contract. */
@Global()
@Module({
  providers: [
    {
      provide: EventStore,
      inject: [PG_POOL, SERVICE_SCHEMA],
      useFactory: (pool: Pool, schema: string) => new EventStore({ pool, schema, registry: new EventRegistry([...sessionEvents, ...runEvents, ...askEvents, ...batchEvents, ...skillEvents, ...loopEvents, ...pluginEvents, ...workflowEvents, ...requestEvents, ...learningEvents, ...evalEvents]) }),
    },
  ],
  exports: [EventStore],
})
export class OrchestratorStoreModule {}
