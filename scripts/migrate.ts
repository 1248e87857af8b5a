import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { ServiceNames, schemaOf } from '@headspace/contracts';
import { migrate, provisionDatabaseRoles } from '@headspace/event-store';
// The file, not @headspace/platform: this script needs no Nest.
import { MIGRATOR, databasePasswordOf, databaseUrlFor, databaseUserOf, dbRolesEnabled } from '../libs/platform/src/database/service-database-url';

/**
 * `npm run migrate`: brings every service schema up to date (the event store's tables, then the
 * service's own `apps/<service>/src/migrations`). Services also migrate their own schema on start
 * (MIGRATE_ON_START); this is for deploys that migrate first.
 *
 * With per-service roles (HS_DB_ROLES, on by default here; docs/adr/0015) DATABASE_URL is the
 * administrator: it creates the missing roles (`hs_migrator`, `hs_<service>`), then the migrations
 * run as the migration role (DATABASE_URL_MIGRATOR, or the administrator's connection under SET
 * ROLE), which owns every table and grants each service role its own schema only, its events
 * SELECT and INSERT only. HS_DB_ROLES=false migrates as DATABASE_URL, as before.
 */
async function main() {
  const env = process.env;
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required');
  let roles = dbRolesEnabled(env, true);
  const explicit = Boolean(env.HS_DB_ROLES);
  const services = ServiceNames.map((service) => ({ service, schema: schemaOf(service), url: databaseUrlFor(service, env, roles) }));
  // DATABASE_URL_MIGRATOR logs in as the migration role; otherwise the administrator's connection
  // takes it on (SET ROLE at connect), so that role needs no password of its own.
  const migrator = databaseUrlFor(MIGRATOR, env, true);
  const migratorRole = databaseUserOf(migrator);
  if (roles) {
    const admin = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
    try {
      const done = await provisionDatabaseRoles(admin, {
        migrator: { role: migratorRole, password: databasePasswordOf(migrator) },
        services: services.map((s) => ({ schema: s.schema, role: databaseUserOf(s.url), password: databasePasswordOf(s.url) })),
      });
      for (const line of done) console.error(`headspace: ${line}`);
    } catch (error) {
      // An administrator that may not create roles (a plain database owner) keeps working as
      // before, said loudly; HS_DB_ROLES=true makes it an error.
      if (explicit || ((error as Error).cause as { code?: string } | undefined)?.code !== '42501') throw error;
      console.error(`headspace: WARNING: no per-service PostgreSQL roles, services connect as DATABASE_URL: ${(error as Error).message}`);
      roles = false;
    } finally {
      await admin.end();
    }
  }
  const viaAdmin = roles && !env.DATABASE_URL_MIGRATOR;
  const pool = new Pool({
    connectionString: roles && !viaAdmin ? migrator : env.DATABASE_URL,
    max: 1,
    ...(viaAdmin ? { options: `-c role=${migratorRole}` } : {}),
  });
  try {
    for (const { service, schema, url } of services) {
      const own = join(__dirname, '..', 'apps', service, 'src', 'migrations');
      const serviceRole = roles ? databaseUserOf(url) : undefined;
      const applied = await migrate(pool, { schema, dirs: existsSync(own) ? [own] : [], serviceRole });
      const state = applied.length ? `applied ${applied.join(', ')}` : 'up to date';
      console.error(`headspace: schema ${schema}: ${state}${serviceRole ? ` (as ${migratorRole}; ${serviceRole} may read and append its events only)` : ''}`);
    }
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(`headspace: migration failed: ${(error as Error).message}`);
  process.exit(1);
});
