import { Module } from '@nestjs/common';
import { EventRegistry, teamManagerEvents } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import { CreateTeamHandler } from './create-team/create-team.handler';

@Module({
  providers: [
    {
      provide: EventStore,
      inject: [PG_POOL, SERVICE_SCHEMA],
      useFactory: (pool: Pool, schema: string) => new EventStore({ pool, schema, registry: new EventRegistry(teamManagerEvents) }),
    },
    CreateTeamHandler,
  ],
})
export class TeamsModule {}
