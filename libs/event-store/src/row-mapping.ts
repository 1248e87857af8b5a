import type { EventMetadata } from '@headspace/contracts';
import type { RecordedEvent } from './types';

// The xid8 is cast to text under a name of its own: aliased as `transaction_id`, an
// `ORDER BY transaction_id` would silently sort by the text ("10" < "9") instead of the index.
export const EVENT_COLUMNS =
  'global_position, transaction_id::text AS tx_id, event_id, stream_id, stream_version, category, type, schema_version, data, metadata, ' +
  '(extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms';

export interface EventRow {
  global_position: string;
  tx_id: string;
  event_id: string;
  stream_id: string;
  stream_version: string;
  category: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_ms: number;
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: BigInt(row.stream_version),
    globalPosition: BigInt(row.global_position),
    transactionId: row.tx_id,
    category: row.category,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: new Date(row.recorded_ms),
  };
}
