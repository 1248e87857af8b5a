import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { EntitySchema } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { BaseConfig } from '../config/base-config.schema';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA } from '../platform.tokens';
import { openReadOrm, READ_ORM, ReadModel } from './read-model';

/** `ReadModelModule.forEntities([...])` in a service's app module: query handlers inject ReadModel. */
@Global()
@Module({})
export class ReadModelModule {
  static forEntities(entities: EntitySchema[]): DynamicModule {
    return {
      module: ReadModelModule,
      global: true,
      providers: [
        {
          provide: READ_ORM,
          useFactory: (pool: Pool, config: BaseConfig, schema: string) => openReadOrm(pool, config.DATABASE_URL, schema, entities),
          inject: [PG_POOL, APP_CONFIG, SERVICE_SCHEMA],
        },
        ReadModel,
      ],
      exports: [ReadModel],
    };
  }
}
