import { ensureInfra } from './infra';

/**
 * vitest globalSetup: makes PostgreSQL and JetStream NATS available (see ensureInfra) and exports
 * DATABASE_URL / NATS_URL so the forked test workers inherit them. Local servers stay up afterwards;
 * containers (HS_TEST_INFRA=containers) are stopped by the returned teardown.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const infra = await ensureInfra();
  process.env.DATABASE_URL = infra.databaseUrl;
  process.env.NATS_URL = infra.natsUrl;
  return infra.stop;
}
