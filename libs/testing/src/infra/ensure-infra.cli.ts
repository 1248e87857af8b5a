/**
 * `node -r @swc-node/register libs/testing/src/infra/ensure-infra.cli.ts` — makes PostgreSQL and
 * JetStream NATS available and prints `DATABASE_URL=…` / `NATS_URL=…` on stdout (logs on stderr).
 * `… ensure-infra.cli.ts --locked-nats` starts (or reuses) a nats-server of its own on HS_NATS_PORT (4223)
 * with per-service credentials instead, and also prints `HS_NATS_AUTH_DIR=…` (docs/adr/0012).
 * `… ensure-infra.cli.ts --stop [port…]` stops the local daemons it started under .headspace/.
 */
import { ensureInfra, stopLocalServers } from './ensure-infra';
import { stderrLog } from './util';

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--stop') {
    const ports = argv.slice(1).map(Number).filter(Number.isInteger);
    const stopped = await stopLocalServers({ ports: ports.length ? ports : undefined });
    stderrLog(stopped.length ? `stopped ${stopped.join(', ')}` : 'no local servers were running');
    return;
  }
  // Local whatever HS_TEST_INFRA says: containers would die with this short-lived process.
  // --locked-nats (npm start without NATS_URL): our own nats-server with per-service credentials.
  const lockedNats = argv.includes('--locked-nats') ? { port: Number(process.env.HS_NATS_PORT || 4223), namespace: process.env.HS_NAMESPACE || undefined } : undefined;
  const infra = await ensureInfra({ infra: 'local', lockedNats });
  for (const item of infra.provisioned) stderrLog(`provisioned ${item}`);
  process.stdout.write(`DATABASE_URL=${infra.databaseUrl}\nNATS_URL=${infra.natsUrl}\n${infra.natsAuthDir ? `HS_NATS_AUTH_DIR=${infra.natsAuthDir}\n` : ''}`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    stderrLog(`infrastructure unavailable: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
