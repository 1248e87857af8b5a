import { randomBytes, randomUUID } from 'node:crypto';
import { claimTask, createTasks, createTeam, ErrorCodes, HeadspaceError, setSubjectNamespace } from '@headspace/contracts';
import { encodeJson, HsHeaders, natsHeaders, readReply, request } from '@headspace/messaging';
import { deleteNamespaceStreams } from '@headspace/testing';
import { benchDatabase, newPool, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

const CLAIMERS = 50;
/** Tasks raced at once (so CLAIMERS × WINDOW requests are in flight), the same for both sides. */
const WINDOW = 20;

/**
 * The claim race of issue 3: 50 concurrent claimers on each task, through the real team-manager (a
 * child process, commands over NATS request/reply, claims decided against the task stream and
 * appended with its compare-and-set), next to the raw PostgreSQL claim
 * `UPDATE tasks SET owner=$1 WHERE id=$2 AND owner IS NULL` on the same server in the same run, with
 * the same pool size as the service (10) and the same concurrency. Claims/s counts every attempt
 * (the winner and its 49 conflicts). Each side also checks its outcome: exactly one owner per task.
 */
export async function benchTaskClaims(options: { quick: boolean }): Promise<BenchRow[]> {
  const tasks = options.quick ? 300 : 1_000;
  const db = await benchDatabase('taskclaims');
  const namespace = `bench-tc-${randomBytes(3).toString('hex')}`;
  const nc = await benchNats();
  const pool = newPool(db.url, 10);
  setSubjectNamespace(namespace);
  let tm: ServiceProcess | undefined;
  try {
    // HS_BENCH_CPU_PROF=<dir> writes a CPU profile of the service (where a claim's time goes).
    const profile = process.env.HS_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HS_BENCH_CPU_PROF}`] : [];
    tm = await launchService('team-manager', { DATABASE_URL: db.url, HS_NAMESPACE: namespace }, profile);

    // Raw baseline table, as the seed's SQLite ledger would claim.
    await pool.query(`CREATE TABLE bench_tasks (id int PRIMARY KEY, owner text)`);
    const raw = async (offset: number, count: number) => {
      await pool.query(`INSERT INTO bench_tasks (id) SELECT g FROM generate_series($1::int, $2::int) g`, [offset, offset + count - 1]);
      return race(count, (i, c) =>
        pool.query({ name: 'raw-claim', text: `UPDATE bench_tasks SET owner = $1 WHERE id = $2 AND owner IS NULL`, values: [`agent-${c}`, offset + i] }).then((r) => r.rowCount === 1),
      );
    };
    const service = async (label: string, count: number) => {
      const team = `${label}-${randomBytes(3).toString('hex')}`;
      await request(nc, createTeam, { name: team });
      for (let start = 0; start < count; start += 200) {
        const ids = Array.from({ length: Math.min(200, count - start) }, (_, i) => ({ id: `t${start + i}`, subject: `task ${start + i}` }));
        await request(nc, createTasks, { team, tasks: ids }, { timeoutMs: 30_000 });
      }
      // A bare NATS client, as the raw side is a bare pg client: the request with its idempotency
      // header, the reply envelope read, no client-side spans or error objects.
      return race(count, async (i, c) => {
        const headers = natsHeaders();
        headers.set(HsHeaders.commandId, randomUUID());
        const msg = await nc.request(claimTask.subject, encodeJson({ team, taskId: `t${i}`, owner: `agent-${c}` }), { timeout: 60_000, headers });
        const reply = readReply(msg.data, claimTask.subject);
        if (reply.ok) return true;
        if (reply.error.code === ErrorCodes.taskAlreadyClaimed) return false;
        throw HeadspaceError.fromWire(reply.error);
      });
    };

    // Warm both paths (plans, connections, JIT), then alternate service and raw rounds over fresh
    // tasks and take the medians (the machine is shared: alternation keeps noise off the ratio).
    await raw(1_000_000, 50);
    await service('warm', 50);
    const rounds = options.quick ? 3 : 5;
    const perRound = Math.ceil(tasks / rounds);
    const ours: RaceResult[] = [];
    const theirs: RaceResult[] = [];
    for (let r = 0; r < rounds; r++) {
      ours.push(await service(`race${r}`, perRound));
      theirs.push(await raw((r + 1) * 100_000, perRound));
    }
    const median = (xs: RaceResult[]) => [...xs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(xs.length / 2)].perSecond;
    const sum = (xs: RaceResult[]): RaceResult => ({
      perSecond: median(xs),
      seconds: xs.reduce((a, x) => a + x.seconds, 0),
      winners: xs.reduce((a, x) => a + x.winners, 0),
      conflicts: xs.reduce((a, x) => a + x.conflicts, 0),
    });
    const measured = sum(ours);
    const raw1 = sum(theirs);
    const baseline = raw1.perSecond;
    const total = perRound * rounds;
    const outcome = (r: RaceResult) => `${r.winners}/${total} tasks with exactly one owner, ${r.conflicts} conflicts (expected ${total * (CLAIMERS - 1)})`;
    return [
      {
        name: `task claims/s, ${CLAIMERS} claimers × ${total} tasks (team-manager over NATS, median of ${rounds})`,
        value: measured.perSecond,
        unit: 'claims/s',
        baseline,
        target: 0.5,
      },
      { name: 'task claim race outcome (team-manager)', value: measured.winners, unit: 'owners', note: outcome(measured) },
      { name: 'task claim race outcome (raw UPDATE … WHERE owner IS NULL)', value: raw1.winners, unit: 'owners', note: outcome(raw1) },
      { name: 'task claim race wall time (team-manager)', value: measured.seconds, unit: 's', note: `raw: ${raw1.seconds.toFixed(2)} s` },
    ];
  } finally {
    setSubjectNamespace('');
    await tm?.stop();
    await pool.end().catch(() => undefined);
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
  }
}

interface RaceResult {
  perSecond: number;
  seconds: number;
  /** Tasks with exactly one successful claim. */
  winners: number;
  conflicts: number;
}

/** WINDOW tasks at a time, CLAIMERS concurrent claims on each; `claim` resolves true for the winner. */
async function race(tasks: number, claim: (task: number, claimer: number) => Promise<boolean>): Promise<RaceResult> {
  const wins = new Array<number>(tasks).fill(0);
  let conflicts = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WINDOW }, async () => {
      for (let t = next++; t < tasks; t = next++) {
        const results = await Promise.all(Array.from({ length: CLAIMERS }, (_, c) => claim(t, c)));
        for (const won of results) if (won) wins[t]++;
        else conflicts++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: (tasks * CLAIMERS) / seconds, seconds, winners: wins.filter((w) => w === 1).length, conflicts };
}
