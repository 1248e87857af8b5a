import { randomBytes } from 'node:crypto';
import { createTeam, openInbox, sendMessage, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

const RATE = 100;
const MEMBERS = 10;

/**
 * Mailbox delivery latency: the team-manager as a real process on a fresh database and its own
 * NATS namespace; direct messages at a fixed 100/s (open loop) between the members of one team,
 * each timed from the send to its row in the recipient's mailbox projection (seen through
 * LISTEN/NOTIFY on a trigger, so no polling delay of the bench itself is measured).
 */
export async function benchMailbox(options: { quick: boolean }): Promise<BenchRow[]> {
  const seconds = options.quick ? 5 : 15;
  const db = await benchDatabase('mailbox');
  const namespace = `bench-mb-${randomBytes(3).toString('hex')}`;
  const listener = new Client({ connectionString: db.url });
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  let tm: ServiceProcess | undefined;
  try {
    tm = await launchService('team-manager', { DATABASE_URL: db.url, HS_NAMESPACE: namespace });
    await db.pool.query(`
      CREATE FUNCTION team_manager.bench_mailbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('bench_mailbox', NEW.message_id::text); RETURN NEW; END $$;
      CREATE TRIGGER bench_mailbox_notify AFTER INSERT ON team_manager.mailbox_messages FOR EACH ROW EXECUTE FUNCTION team_manager.bench_mailbox_notify();`);
    await listener.connect();
    await listener.query('LISTEN bench_mailbox');
    const projected = new Map<string, number>();
    listener.on('notification', (n) => {
      if (!projected.has(n.payload ?? '')) projected.set(n.payload ?? '', performance.now());
    });

    const team = `bench-${randomBytes(3).toString('hex')}`;
    await request(nc, createTeam, { name: team });
    // Members only (no lead): a peer DM would also copy its summary to the lead, and we time one row per send.
    const members = Array.from({ length: MEMBERS }, (_, i) => `agent-${i}`);
    for (const memberId of members) await request(nc, openInbox, { team, memberId, role: 'member' });

    await send(nc, team, members, 3 * RATE, RATE); // 3 s warm-up (JIT, pools, prepared statements)
    const sentAt = new Map<string, number>();
    const replied: number[] = [];
    const total = RATE * seconds;
    const errors = await send(nc, team, members, total, RATE, sentAt, replied);
    await waitFor(() => [...sentAt.keys()].every((id) => projected.has(id)) || undefined, { timeoutMs: 30_000, message: 'all projected' }).catch(() => undefined);

    const latencies = [...sentAt].filter(([id]) => projected.has(id)).map(([id, t]) => projected.get(id)! - t).sort((a, b) => a - b);
    const rss = tm.rssMb();
    return [
      { name: `mailbox send → recipient projection p50 (${RATE}/s, ${total} messages)`, value: percentile(latencies, 50), unit: 'ms', note: `${latencies.length}/${total} projected, ${errors} errors` },
      { name: `mailbox send → recipient projection p99 (${RATE}/s)`, value: percentile(latencies, 99), unit: 'ms', note: 'target < 50 ms' },
      { name: 'mailbox send → recipient projection max', value: latencies[latencies.length - 1] ?? NaN, unit: 'ms' },
      { name: 'mailbox send → command reply p50 / p99', value: percentile(replied.sort((a, b) => a - b), 50), unit: 'ms', note: `p99 ${percentile(replied, 99).toFixed(1)} ms (the append is durable at the reply)` },
      { name: 'team-manager RSS after the mailbox run', value: rss, unit: 'MB' },
    ];
  } finally {
    setSubjectNamespace('');
    await listener.end().catch(() => undefined);
    await tm?.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
  }
}

/** Open loop at a fixed arrival rate; the clock starts just before the request leaves. Keyed by message id. */
async function send(
  nc: Awaited<ReturnType<typeof connect>>,
  team: string,
  members: string[],
  count: number,
  rate: number,
  sentAt?: Map<string, number>,
  replied?: number[],
): Promise<number> {
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const from = members[i % members.length];
    const to = members[(i + 1 + (i % (members.length - 1))) % members.length]; // never the sender
    const at = performance.now();
    pending.push(
      request(nc, sendMessage, { team, type: 'message', from, to, body: `message ${i}`, summary: 'bench message for the latency run' }, { timeoutMs: 10_000 })
        .then((reply) => {
          replied?.push(performance.now() - at);
          sentAt?.set(reply.messageId, at);
        })
        .catch(() => errors++),
    );
  }
  await Promise.all(pending);
  return errors;
}
