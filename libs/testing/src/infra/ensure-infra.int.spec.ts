import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ensureInfra, freePort, listLocalServers, natsStatus, pgStatus, stopLocalServers } from './index';
import { pgDaemonDir } from './postgres';

const quiet = () => undefined;

async function query(url: string, sql: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as Record<string, unknown>;
  } finally {
    await client.end();
  }
}

describe('ensureInfra', () => {
  it('returns reachable PostgreSQL and JetStream URLs (those the global setup exported)', async () => {
    const infra = await ensureInfra({ log: quiet });
    expect(infra.databaseUrl).toBe(process.env.DATABASE_URL);
    expect(infra.natsUrl).toBe(process.env.NATS_URL);
    expect(infra.provisioned).toEqual([]);
    expect((await pgStatus(infra.databaseUrl)).status).toBe('ok');
    expect(await natsStatus(infra.natsUrl)).toBe('jetstream');
    expect(await query(infra.databaseUrl, 'select 1 as one')).toEqual({ one: 1 });
  });

  it('starts local servers on the ports of unreachable URLs, reuses them, and stops them', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'hs-infra-'));
    const [pgPort, natsPort] = [await freePort(), await freePort()];
    const databaseUrl = `postgres://postgres@127.0.0.1:${pgPort}/hs_provisioned`;
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const opts = { databaseUrl, natsUrl, stateDir, infra: 'local' as const, allowInstall: false, log: quiet };
    try {
      expect((await pgStatus(databaseUrl)).status).toBe('unreachable');
      expect(await natsStatus(natsUrl)).toBe('unreachable');

      const first = await ensureInfra(opts);
      expect(first.databaseUrl).toBe(databaseUrl);
      expect(first.natsUrl).toBe(natsUrl);
      expect(first.provisioned).toHaveLength(2);
      expect(first.provisioned.join('\n')).toMatch(new RegExp(`PostgreSQL local daemon on 127.0.0.1:${pgPort}`));
      expect(first.provisioned.join('\n')).toMatch(new RegExp(`nats-server local daemon on 127.0.0.1:${natsPort}`));
      expect(await query(databaseUrl, 'select current_database() as db')).toEqual({ db: 'hs_provisioned' });
      expect(await natsStatus(natsUrl)).toBe('jetstream');
      expect(listLocalServers(stateDir).sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
        { kind: 'nats', port: natsPort },
        { kind: 'postgres', port: pgPort },
      ]);

      const again = await ensureInfra(opts);
      expect(again).toEqual({ databaseUrl, natsUrl, provisioned: [] });
    } finally {
      const stopped = await stopLocalServers({ stateDir });
      rmSync(stateDir, { recursive: true, force: true });
      expect(stopped).toHaveLength(2);
    }
    expect((await pgStatus(databaseUrl)).status).toBe('unreachable');
    expect(await natsStatus(natsUrl)).toBe('unreachable');
  });

  it("keeps PostgreSQL's state where the postgres user can reach it when run as root in a checkout others cannot enter", () => {
    const closed = mkdtempSync(join(tmpdir(), 'hs-closed-')); // 0700, like root's home
    const stateDir = join(closed, 'checkout', '.headspace');
    const open = mkdtempSync(join(tmpdir(), 'hs-open-'));
    const dir = pgDaemonDir(stateDir, 5999);
    try {
      chmodSync(open, 0o755);
      expect(pgDaemonDir(join(open, '.headspace'), 5999)).toBe(join(open, '.headspace', 'pg-5999'));
      if (process.getuid?.() === 0) {
        expect(dirname(dirname(dir))).toBe(tmpdir());
        expect(pgDaemonDir(stateDir, 5999)).toBe(dir); // the same place again, for the stop
      } else {
        expect(dir).toBe(join(stateDir, 'pg-5999')); // not root: PostgreSQL runs as this user
      }
    } finally {
      for (const made of [closed, open, dirname(dir)]) rmSync(made, { recursive: true, force: true });
    }
  });

  it('refuses, with a clear message, to provision for an unreachable remote URL', async () => {
    await expect(
      ensureInfra({ databaseUrl: 'postgres://postgres@192.0.2.1:5432/x', infra: 'local' as const, log: quiet }),
    ).rejects.toThrow(/DATABASE_URL .*192\.0\.2\.1.* is unreachable and not local/);
  });
});
