import type { PoolClient, QueryResult } from 'pg';

/**
 * BEGIN and the inbox rows of a group of events in one round trip. A simple query takes no
 * parameters, so the values are inlined, escaped (the ids were validated as UUIDs when decoded).
 * Per event id, in order: whether it is new. A second copy of an id in the same group is not.
 * `q` is the service's schema, already quoted (quoteIdent).
 */
export async function beginWithInbox(client: PoolClient, q: string, consumer: string, eventIds: string[]): Promise<boolean[]> {
  const rows = eventIds.map((id) => `(${client.escapeLiteral(consumer)}, ${client.escapeLiteral(id)})`).join(', ');
  const results = (await client.query(`BEGIN; INSERT INTO ${q}.inbox (consumer, event_id) VALUES ${rows} ON CONFLICT DO NOTHING RETURNING event_id`)) as unknown as QueryResult<{
    event_id: string;
  }>[];
  const inserted = new Set(results[1].rows.map((r) => r.event_id));
  return eventIds.map((id) => inserted.delete(id.toLowerCase()));
}
