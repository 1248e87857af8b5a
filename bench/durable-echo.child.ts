import { connect, type Msg } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { PgClient } from '@headspace/event-store';

/**
 * The least a service can do that answers each request only once it is durable in PostgreSQL: a
 * queue-group responder in a process of its own (as a service is) that group-commits every request
 * body as a row — one INSERT for all that arrived while the last one committed — and then replies.
 * No validation, no decision, no events, no relay or projections. The cost-governor bench measures
 * it beside the raw echo: what a durable answer costs on this machine before any governor logic.
 * Args: database url, NATS url, subject. Prints "ready" once subscribed.
 */
const MAX_BATCH = 256;

async function main() {
  const [url, natsUrl, subject] = process.argv.slice(2);
  const pool = new Pool({ connectionString: url, max: 2, Client: PgClient });
  await pool.query('CREATE TABLE IF NOT EXISTS bench_durable_echo (id bigserial PRIMARY KEY, body jsonb NOT NULL)');
  const nc = await connect({ servers: natsUrl, name: 'bench-durable-echo' });
  const queue: Msg[] = [];
  let writing = false;
  const kick = (): void => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch = queue.splice(0, MAX_BATCH);
    pool
      .query({ text: 'INSERT INTO bench_durable_echo (body) SELECT * FROM unnest($1::jsonb[])', values: [batch.map((m) => m.string())] })
      .then(
        () => batch.forEach((m) => m.respond(m.data)),
        (error: Error) => console.error(`durable echo: ${error.message}`),
      )
      .finally(() => {
        writing = false;
        kick();
      });
  };
  nc.subscribe(subject, {
    queue: 'bench',
    callback: (_error, msg) => {
      queue.push(msg);
      kick();
    },
  });
  await nc.flush();
  process.once('SIGTERM', () => void nc.drain().then(() => pool.end()).then(() => process.exit(0)));
  console.log('ready');
}

void main();
