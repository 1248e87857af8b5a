import { meter } from '@headspace/telemetry';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';

const pendingGauge = meter.createObservableGauge('headspace.jetstream.consumer.pending', {
  description: "Messages in a durable consumer's stream subjects not yet delivered to it (JetStream num_pending)",
});
const ackPendingGauge = meter.createObservableGauge('headspace.jetstream.consumer.ack_pending', {
  description: 'Messages delivered to a durable consumer and not yet acknowledged (JetStream num_ack_pending)',
});

/** How old consumer info may be before a collection asks the server again. */
export const CONSUMER_INFO_MAX_AGE_MS = 5_000;

interface Watched {
  stream: string;
  durable: string;
  js: JetStreamClient;
  jsm?: Promise<JetStreamManager>;
  /** Consumers in this process running the durable (instances of one service, or tests). */
  holders: number;
  info?: { pending: number; ackPending: number; at: number };
  refreshing?: Promise<void>;
  failing: boolean;
}

const watched = new Map<string, Watched>();

async function refresh(entry: Watched): Promise<void> {
  try {
    entry.jsm ??= entry.js.jetstreamManager();
    const info = await (await entry.jsm).consumers.info(entry.stream, entry.durable);
    entry.info = { pending: info.num_pending, ackPending: info.num_ack_pending, at: Date.now() };
    entry.failing = false;
  } catch (error) {
    entry.jsm = undefined;
    // One line per failure streak: a scrape every few seconds during a NATS outage would flood the log.
    if (!entry.failing) console.warn(`[consumer ${entry.durable}] consumer info for the pending gauges failed: ${(error as Error).message}`);
    entry.failing = true;
  }
}

meter.addBatchObservableCallback(
  async (result) => {
    const entries = [...watched.values()];
    await Promise.all(
      entries.map((entry) => {
        if (entry.info && Date.now() - entry.info.at < CONSUMER_INFO_MAX_AGE_MS) return undefined;
        entry.refreshing ??= refresh(entry).finally(() => (entry.refreshing = undefined));
        return entry.refreshing;
      }),
    );
    for (const entry of entries) {
      if (!entry.info || !watched.has(`${entry.stream}\0${entry.durable}`)) continue;
      const labels = { stream: entry.stream, consumer: entry.durable };
      result.observe(pendingGauge, entry.info.pending, labels);
      result.observe(ackPendingGauge, entry.info.ackPending, labels);
    }
  },
  [pendingGauge, ackPendingGauge],
);

/**
 * Reports a durable consumer's pending and ack-pending counts from its consumer info (asked at most
 * every CONSUMER_INFO_MAX_AGE_MS, on collection) until the returned function is called.
 */
export function watchConsumerPending(js: JetStreamClient, stream: string, durable: string): () => void {
  const key = `${stream}\0${durable}`;
  const entry = watched.get(key) ?? { stream, durable, js, holders: 0, failing: false };
  entry.holders++;
  watched.set(key, entry);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--entry.holders === 0 && watched.get(key) === entry) watched.delete(key);
  };
}
