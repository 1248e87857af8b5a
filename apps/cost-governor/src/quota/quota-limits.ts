import { quotaStreamId, type EventData, type quotaSet } from '@headspace/contracts';
import type { EventStore, Queryable, RecordedEvent } from '@headspace/event-store';

/** The weekly limit of a project: its latest `quota.set` (undefined without one). */
export async function weeklyLimitOf(store: EventStore, project: string, client?: Queryable): Promise<{ limit?: bigint; version: bigint }> {
  const events = (await store.readStream(quotaStreamId(project), client ? { client } : {})) as Array<RecordedEvent<EventData<typeof quotaSet>>>;
  const last = events.filter((e) => e.type === 'quota.set').pop();
  return { limit: last ? BigInt(last.data.weeklyLimitMicros) : undefined, version: events.length ? events[events.length - 1].streamVersion : 0n };
}
