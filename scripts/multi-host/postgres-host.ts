import { execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { waitFor } from '../../libs/testing/src/infra/util';
import { SUBNET, spawnOn, type Host } from './hosts';

const BIN = process.env.HS_MULTI_HOST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A private PostgreSQL server inside a host's namespace (the machine's own listens on 127.0.0.1
 * only): initdb into `dir` as the `postgres` OS user, trust on the hosts' /24, fsync off (a test's
 * data outlives nothing). Resolves with the administrator's URL once it accepts connections.
 */
export async function startPostgresOn(host: Host, dir: string): Promise<{ url: string; child: ChildProcess }> {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  mkdirSync(dir, { recursive: true });
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  execFileSync(join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], { uid, gid, stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(join(data, 'pg_hba.conf'), ['local all all trust', 'host all all 127.0.0.1/32 trust', `host all all ${SUBNET}.0/24 trust`, ''].join('\n'));
  const child = spawnOn(host, 'setpriv', [
    '--reuid=postgres',
    '--regid=postgres',
    '--init-groups',
    join(BIN, 'postgres'),
    '-D', data,
    '-c', `listen_addresses=${host.address}`,
    '-c', 'port=5432',
    '-c', `unix_socket_directories=${dir}`,
    '-c', 'fsync=off',
    '-c', 'synchronous_commit=off',
    '-c', 'full_page_writes=off',
    '-c', 'max_connections=300',
  ]);
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  const admin = `postgres://postgres@${host.address}:5432/postgres`;
  await waitFor(
    `PostgreSQL on ${host.namespace}`,
    async () => {
      if (child.exitCode !== null) throw new Error(`postgres exited: ${log}`);
      const client = new Client({ connectionString: admin, connectionTimeoutMillis: 1_000 });
      await client.connect();
      await client.end();
      return true;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  const client = new Client({ connectionString: admin });
  await client.connect();
  await client.query('CREATE DATABASE headspace');
  await client.end();
  return { url: `postgres://postgres@${host.address}:5432/headspace`, child };
}
