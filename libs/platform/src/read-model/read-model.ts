import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager, EntityName, EntitySchema, MikroORM, QBFilterQuery, QueryOrderMap } from '@mikro-orm/postgresql';
import type { PostgresPool } from 'kysely';
import type { Pool } from 'pg';
import { PG_POOL } from '../platform.tokens';

/** The read side's MikroORM instance of one service, over the service's own pool and schema. */
export const READ_ORM = Symbol.for('headspace.READ_ORM');

/**
 * Opens MikroORM on the platform's pool: the same connections, limits and int8-as-string parsers
 * as the rest of the service. The pool stays the platform's to end (PlatformLifecycle), so the
 * dialect sees a view of it whose `end` does nothing. MikroORM never creates or migrates a table:
 * the service's SQL migrations own the schema. MikroORM is loaded here, not when the platform is:
 * it adds ~20 MB to a process's RSS, which services without read models (gateway, ops-leon) do not
 * pay.
 */
export async function openReadOrm(pool: Pool, databaseUrl: string, schema: string, entities: EntitySchema[]): Promise<MikroORM> {
  const [{ MikroORM }, { PostgresDialect }] = await Promise.all([import('@mikro-orm/postgresql'), import('kysely')]);
  // pg keeps `options` (and `Client`) on the pool at runtime; Kysely reads them to cancel a query.
  const { options, Client } = pool as Pool & { options: object; Client?: PostgresPool['Client'] };
  const borrowed: PostgresPool = { options, Client, connect: () => pool.connect(), end: async () => undefined };
  return MikroORM.init({
    driverOptions: new PostgresDialect({ pool: borrowed }),
    dbName: decodeURIComponent(new URL(databaseUrl).pathname.slice(1)),
    schema,
    entities,
    discovery: { warnWhenNoEntities: false },
    ensureDatabase: false,
    // Read models are never flushed from here: no per-row change-propagation setters to define.
    propagationOnPrototype: false,
  });
}

/**
 * The service's read models. `em()` forks a fresh EntityManager, so each query starts with an
 * empty identity map and sees the rows the projections wrote since the last one.
 */
@Injectable()
export class ReadModel implements OnApplicationShutdown {
  private readonly mapped = new Map<EntityName<object>, { columns: string[]; names: Map<string, string> }>();

  constructor(
    @Inject(READ_ORM) private readonly orm: MikroORM,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  em(): EntityManager {
    return this.orm.em.fork();
  }

  /**
   * A list read: the entity's rows as plain objects under its property names and types. MikroORM
   * builds the statement (with its values escaped and inlined, as it sends them itself) from the
   * entity's properties; the service's pool runs it. Rows are neither managed entities nor passed
   * through MikroORM's driver: the pool's parsers already give each column its property's type
   * (int8 as string, timestamptz as Date, jsonb and arrays parsed), so only the names change.
   * Both detours cost more than the query itself on the gateway's hot reads (bench/README.md).
   */
  async rows<E extends object>(entity: EntityName<E>, where: QBFilterQuery<E>, options: { orderBy?: QueryOrderMap<E>[]; limit?: number } = {}): Promise<E[]> {
    const em = this.em();
    const { columns, names } = this.mappingOf(em, entity as EntityName<object>);
    const qb = em.createQueryBuilder(entity).select(columns as never).where(where);
    if (options.orderBy) qb.orderBy(options.orderBy as never);
    if (options.limit !== undefined) qb.limit(options.limit);
    const { rows } = await this.pool.query<Record<string, unknown>>(qb.getFormattedQuery());
    return rows.map((row) => {
      const named: Record<string, unknown> = {};
      for (const column in row) named[names.get(column) ?? column] = row[column];
      return named as E;
    });
  }

  /** A get: the one row `where` selects (a primary key), as `rows` reads it, or null. */
  async one<E extends object>(entity: EntityName<E>, where: QBFilterQuery<E>): Promise<E | null> {
    const [row] = await this.rows(entity, where, { limit: 1 });
    return row ?? null;
  }

  /** The mapped properties only (a table may hold more columns than its entity maps), and each column's property name. */
  private mappingOf(em: EntityManager, entity: EntityName<object>): { columns: string[]; names: Map<string, string> } {
    let mapping = this.mapped.get(entity);
    if (!mapping) {
      const props = em.getMetadata(entity).props.filter((prop) => !prop.formula);
      mapping = { columns: props.map((prop) => prop.name), names: new Map(props.map((prop) => [prop.fieldNames[0], prop.name])) };
      this.mapped.set(entity, mapping);
    }
    return mapping;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.orm.close();
  }
}
