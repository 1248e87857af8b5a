import { randomBytes } from 'node:crypto';
import { createTasks, createTeam, openInbox, sendMessage, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { benchDatabase, type BenchRow } from './bench-kit';
import { benchNats, launchService } from './service-process';

const TEAMS = 10;
const MEMBERS = 100;

/**
 * The team-manager holding a large team state: N tasks (batches of 100 across 10 teams) and N
 * messages (broadcasts to 100-member teams) fed through its NATS commands, then its RSS once its
 * projections (task board, mailboxes) have caught up, and again after a query over all of it.
 */
export async function benchTeamManagerScale(options: { quick: boolean }): Promise<BenchRow[]> {
  const n = options.quick ? 10_000 : 100_000;
  const db = await benchDatabase('tmscale');
  const namespace = `bench-sc-${randomBytes(3).toString('hex')}`;
  setSubjectNamespace(namespace);
  const nc = await benchNats();
  const tm = await launchService('team-manager', { DATABASE_URL: db.url, HS_NAMESPACE: namespace });
  try {
    const idle = tm.rssMb();
    const teams = Array.from({ length: TEAMS }, (_, i) => `scale-${i}-${randomBytes(2).toString('hex')}`);
    for (const name of teams) {
      await request(nc, createTeam, { name });
      const members = Array.from({ length: MEMBERS }, (_, m) => `agent-${m}`);
      // One at a time: every open-inbox decides against the team's one mailbox registry stream.
      for (const memberId of members) await request(nc, openInbox, { team: name, memberId, role: 'member' });
    }
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, tm.rssMb())), 250);
    const started = performance.now();

    const taskBatches = Array.from({ length: n / 100 }, (_, b) => b);
    await inParallel(taskBatches, 4, (b) =>
      request(nc, createTasks, {
        team: teams[b % TEAMS],
        tasks: Array.from({ length: 100 }, (_, k) => ({ subject: `Task ${b}-${k}: implement the part`, metadata: { batch: String(b) } })),
      }, { timeoutMs: 60_000 }),
    );
    const broadcasts = Array.from({ length: Math.ceil(n / (MEMBERS - 1)) }, (_, i) => i);
    await inParallel(broadcasts, 4, (i) =>
      request(nc, sendMessage, {
        team: teams[i % TEAMS],
        type: 'broadcast',
        from: `agent-${i % MEMBERS}`,
        body: `status update ${i}`,
        summary: 'a status update for every teammate',
      }, { timeoutMs: 60_000 }),
    );
    const counts = async () => {
      const { rows } = await db.pool.query<{ tasks: string; messages: string }>(
        `SELECT (SELECT count(*) FROM team_manager.task_board) AS tasks, (SELECT count(*) FROM team_manager.mailbox_messages) AS messages`,
      );
      return { tasks: Number(rows[0].tasks), messages: Number(rows[0].messages) };
    };
    const messagesSent = broadcasts.length * (MEMBERS - 1);
    const final = await waitFor(async () => {
      const c = await counts();
      return c.tasks >= n && c.messages >= messagesSent ? c : undefined;
    }, { timeoutMs: 600_000, intervalMs: 500, message: 'projections caught up' });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const settled = tm.rssMb();
    return [
      { name: `team-manager RSS, ${final.tasks.toLocaleString('en-US')} tasks + ${final.messages.toLocaleString('en-US')} messages projected`, value: settled, unit: 'MB', note: `target < 300 MB; idle ${idle.toFixed(0)} MB, peak while loading ${peak.toFixed(0)} MB` },
      { name: 'team-manager load rate (tasks + messages)', value: (final.tasks + final.messages) / seconds, unit: 'rows/s', note: `${seconds.toFixed(1)} s through NATS commands to both projections` },
    ];
  } finally {
    setSubjectNamespace('');
    await tm.stop();
    await deleteNamespaceStreams(nc, namespace);
    await nc.close();
    await db.drop();
  }
}

async function inParallel<T>(items: T[], lanes: number, run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < items.length) await run(items[next++]);
  }));
}
