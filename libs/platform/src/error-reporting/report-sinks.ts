import { reportException } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ReportSink } from './error-reporter';

/** ops-leon's `report-exception` over NATS; the event id is the command id, so a retried report counts once. */
export const natsReportSink =
  (nc: NatsConnection, timeoutMs = 3_000): ReportSink =>
  (body) =>
    request(nc, reportException, body, { commandId: `report-exception:${body.eventId}`, timeoutMs });
