import { ErrorCodes, HeadspaceError, ingestException, type ExceptionReportInput } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { meter } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import type { PresentedKey } from './ingest-key';
import { sendTogether } from './send-together';

export type IngestRoute = 'plain' | 'envelope' | 'store';

const items = meter.createCounter('headspace.gateway.ops_ingest.items', {
  description: 'Items the exception ingest routes received, by route, item type and outcome (forwarded, duplicate, dropped, refused)',
});

/** Item types as Sentry names them; anything else a client writes is `other` (bounded metric labels). */
const KNOWN_TYPES = new Set(['event', 'transaction', 'session', 'sessions', 'attachment', 'client_report', 'user_report', 'feedback', 'profile', 'profile_chunk', 'replay_event', 'replay_recording', 'replay_video', 'check_in', 'statsd', 'metric_meta', 'span', 'log', 'otel_log']);

export const countItems = (route: IngestRoute, type: string, outcome: string, n = 1) => {
  if (n > 0) items.add(n, { route, type: KNOWN_TYPES.has(type) ? type : 'other', outcome });
};

export interface IngestAnswer {
  eventId: string;
  groupId: string;
  accepted: boolean;
}

/**
 * One report to ops-leon over NATS. ops-leon owns the keys and checks this one before anything is
 * written; the command id is derived from the project and event id, so a client's retry of the
 * same event is one command (ops-leon also counts an event id once). Reports forwarded in one
 * event-loop turn leave in one socket write.
 */
export async function forwardReport(
  nc: NatsConnection,
  project: string,
  key: PresentedKey,
  report: ExceptionReportInput,
  options: { timeoutMs: number; route: IngestRoute },
): Promise<IngestAnswer> {
  try {
    const receivedAt = new Date().toISOString();
    const answer = await sendTogether(() =>
      request(nc, ingestException, { project, publicKey: key.publicKey, report, receivedAt }, { timeoutMs: options.timeoutMs, commandId: `ops-ingest:${project}:${report.eventId}` }),
    );
    countItems(options.route, 'event', answer.accepted ? 'forwarded' : 'duplicate');
    return answer;
  } catch (error) {
    countItems(options.route, 'event', 'refused');
    throw withKeyField(error, key);
  }
}

/** A refused key names where the client put it (the header, the query parameter, the DSN), not the NATS field. */
function withKeyField(error: unknown, key: PresentedKey): unknown {
  if (error instanceof HeadspaceError && error.code === ErrorCodes.opsIngestKeyInvalid) {
    return new HeadspaceError(error.code, error.message, { field: key.field, details: error.details });
  }
  return error;
}
