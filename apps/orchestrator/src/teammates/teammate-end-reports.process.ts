import { Inject, Injectable } from '@nestjs/common';
import { announceTeammateCompletion, ErrorCodes, HeadspaceError, reportTeammateIdle, sessionEnded, sessionStreamId, type EventData, type sessionStarted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { EventProcessor, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { endReportsFor, isTeammateSession } from './teammate-session';

type Ended = RecordedEvent & { data: EventData<typeof sessionEnded> };

/** Refusals that mean the report has no one to go to (the teammate or its team is gone): expected, skipped. */
const GONE = new Set<string>([ErrorCodes.teammateNotActive, ErrorCodes.teammateNotFound, ErrorCodes.teamNotFound]);

/**
 * When a teammate's session ends by itself, the teammate reports as seed 003's teammates do: its
 * completion is announced to the lead (`announce-teammate-completion`, outcome and summary from
 * the session's end) and it goes idle (`report-teammate-idle`, which during a team shutdown counts
 * as approving its shutdown_request). A session stopped for the teammate's termination reports
 * nothing. It tails the orchestrator's log; the commands' ids are derived from the session id, so a
 * batch handled again (after a crash or a lease takeover) reports nothing twice. Not woken by every
 * append (sessions append every turn; a report may wait for the next poll): it polls, and holds its
 * batch transaction over the two NATS round trips only for the rare batch with a teammate's end.
 */
@Injectable()
export class TeammateEndReports extends EventProcessor<Ended> {
  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {
    super(store, { name: 'process:teammate-end-reports', types: [sessionEnded.type], wakeOnAppend: false });
  }

  protected async handle(events: Ended[]): Promise<void> {
    for (const event of events) if (isTeammateSession(event.data.sessionId)) await this.report(event);
  }

  private async report(event: Ended): Promise<void> {
    const reports = endReportsFor(event.data);
    if (!reports) return;
    const [first] = await this.store.readStream(sessionStreamId(event.data.sessionId));
    const started = first?.data as EventData<typeof sessionStarted> | undefined;
    if (!started) return;
    const member = { team: started.team, member: started.persona };
    const meta = (step: string) => ({ commandId: `teammate-${step}:${event.data.sessionId}`, causationId: event.eventId });
    await this.settle(request(this.nc, announceTeammateCompletion, { ...member, ...reports.announce }, meta('announce')));
    await this.settle(request(this.nc, reportTeammateIdle, { ...member, ...reports.idle }, meta('idle')));
  }

  /** A report to a teammate or team that is gone is dropped; anything else (an outage, a timeout) fails the batch, which is handled again. */
  private async settle(call: Promise<unknown>): Promise<void> {
    try {
      await call;
    } catch (error) {
      if (!(error instanceof HeadspaceError) || !GONE.has(error.code)) throw error;
      this.logger.warn(`teammate report dropped: ${error.code} ${error.message}`);
    }
  }
}
