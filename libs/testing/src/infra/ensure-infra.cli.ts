/**
 * `node -r @swc-node/register libs/testing/src/infra/ensure-infra.cli.ts` — makes PostgreSQL and
 * JetStream NATS available and prints `DATABASE_URL=…` / `NATS_URL=…` on stdout (logs on stderr).
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
  const infra = await ensureInfra({ infra: 'local' });
  for (const item of infra.provisioned) stderrLog(`provisioned ${item}`);
  process.stdout.write(`DATABASE_URL=${infra.databaseUrl}\nNATS_URL=${infra.natsUrl}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    stderrLog(`infrastructure unavailable: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
