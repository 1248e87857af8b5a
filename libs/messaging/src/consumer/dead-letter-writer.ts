import type { JsMsg } from '@nats-io/jetstream';
import type { Pool } from 'pg';
import { headersToRecord, headerValue, HsHeaders } from '../headers/hs-headers';

const decoder = new TextDecoder();

/** "CODE: message" plus the first lines of the stack: enough to triage, small enough to store. */
export function describeError(error: unknown, stackLines = 6): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const head = `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`;
  const stack = (error.stack ?? '').split('\n').slice(1, 1 + stackLines).map((l) => l.trim());
  return [head, ...stack].join('\n');
}

/**
 * Records a message a consumer gives up on, once per (consumer, stream sequence) even when the
 * terminating ack is lost and the message comes back.
 */
export async function writeDeadLetter(pool: Pool, q: string, consumer: string, msg: JsMsg, error: unknown, eventId?: string): Promise<void> {
  await pool.query(
    `INSERT INTO ${q}.dead_letters (consumer, event_id, subject, stream_seq, deliveries, error, payload, headers)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8::jsonb
      WHERE NOT EXISTS (SELECT 1 FROM ${q}.dead_letters WHERE consumer = $1 AND stream_seq = $4)`,
    [
      consumer,
      eventId ?? headerValue(msg.headers, HsHeaders.eventId) ?? null,
      msg.subject,
      msg.seq,
      msg.info.deliveryCount,
      describeError(error),
      decoder.decode(msg.data),
      JSON.stringify(headersToRecord(msg.headers)),
    ],
  );
}
