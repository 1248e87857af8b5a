import { Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { asDatabaseUnavailable, EventStore, type AppendResult, type OnceAppend } from '@headspace/event-store';
import { meter } from '@headspace/telemetry';

/** The most receipts one statement takes; the rest wait for the next. */
const MAX_BATCH = 512;

const batchSize = meter.createHistogram('headspace.ops.ingest.group_commit.receipts', { description: 'Exception receipts appended together in one statement' });

interface Queued {
  entry: OnceAppend;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/**
 * Ingest receipts are group-committed, one statement at a time per instance: a batch takes every
 * receipt queued while the previous one was being written and appends them all with one
 * EventStore.appendOnce (one round trip and one WAL flush, whatever the number of shard streams
 * and callers). Each caller is answered only after the commit, so an acknowledged event is durable;
 * a receipt whose command id is already recorded — a client's retry, even one in the same batch —
 * is answered as a replay and counts nothing. An error that one receipt may have caused (its event
 * refused by its contract, a value the database refuses) splits the batch in halves until that
 * receipt fails alone; the database being unavailable fails the whole batch at once.
 */
@Injectable()
export class IngestGroupCommit {
  private readonly queue: Queued[] = [];
  private writing = false;

  constructor(private readonly store: EventStore) {}

  append(entry: OnceAppend): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    void this.write(batch).finally(() => {
      this.writing = false;
      this.kick();
    });
  }

  private async write(batch: Queued[]): Promise<void> {
    let results: AppendResult[];
    try {
      results = await this.store.appendOnce(batch.map((item) => item.entry));
    } catch (error) {
      if (batch.length > 1 && mayBeOneReceiptsFault(error)) {
        const half = Math.ceil(batch.length / 2);
        await this.write(batch.slice(0, half));
        await this.write(batch.slice(half));
        return;
      }
      for (const item of batch) item.reject(error);
      return;
    }
    batchSize.record(batch.length);
    results.forEach((result, i) => batch[i].resolve(result));
  }
}

/** A receipt's own fault (its contract, a value PostgreSQL refuses: SQLSTATE class 22), not the database's or the batch's. */
function mayBeOneReceiptsFault(error: unknown): boolean {
  if (asDatabaseUnavailable(error)) return false;
  if (error instanceof HeadspaceError) return error.code !== ErrorCodes.retriesExhausted;
  return (error as { code?: unknown })?.code?.toString().startsWith('22') ?? false;
}
