import { ensureInfra } from './infra';

/**
 * vitest globalSetup: makes PostgreSQL and JetStream NATS available (see ensureInfra) and exports
 * DATABASE_URL / NATS_URL so the forked test workers inherit them. Servers stay up afterwards.
 */
export default async function setup(): Promise<void> {
  const infra = await ensureInfra();
  process.env.DATABASE_URL = infra.databaseUrl;
  process.env.NATS_URL = infra.natsUrl;
}
