import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { ServiceNames, schemaOf } from '@headspace/contracts';
import { migrate } from '@headspace/event-store';

/**
 * `npm run migrate`: brings every service schema up to date (the event store's tables, then the
 * service's own `apps/<service>/src/migrations`). Services also migrate their own schema on start
 * (MIGRATE_ON_START); this is for deploys that migrate first.
 */
async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    for (const service of ServiceNames) {
      const own = join(__dirname, '..', 'apps', service, 'src', 'migrations');
      const applied = await migrate(pool, { schema: schemaOf(service), dirs: existsSync(own) ? [own] : [] });
      console.error(`headspace: schema ${schemaOf(service)}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);
    }
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(`headspace: migration failed: ${(error as Error).message}`);
  process.exit(1);
});
