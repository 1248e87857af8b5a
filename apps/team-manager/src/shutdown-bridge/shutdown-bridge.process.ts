import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, openInbox, respondTeamShutdown, sendMessage, type EventData, type shutdownAnswered, type teamShutdownRequested } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { EventProcessor, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';

type BridgedEvent =
  | (RecordedEvent & { type: 'team.shutdown-requested'; data: EventData<typeof teamShutdownRequested> })
  | (RecordedEvent & { type: 'mailbox.shutdown-answered'; data: EventData<typeof shutdownAnswered> });

/** Answers that mean "already done" or "not part of the team protocol": expected, not even logged. */
const EXPECTED = new Set<string>([
  ErrorCodes.teamUnknownShutdownRequest,
  ErrorCodes.teamShutdownAlreadyAnswered,
  ErrorCodes.teamNotActive,
  ErrorCodes.mailboxLeadAlreadyExists,
]);

/** Only a failure to reach the handler (or its crash) is worth retrying; a domain refusal will not change. */
const retryable = (code: string) => code.startsWith('MESSAGING.') || code === ErrorCodes.internal || code === ErrorCodes.databaseUnavailable;

/**
 * The process manager joining the team's shutdown protocol (the team aggregate decides) and the
 * mailboxes (how members hear of it and answer): `team.shutdown-requested` → a shutdown_request in
 * every member's inbox carrying the team's request_id; `mailbox.shutdown-answered` →
 * `respond-team-shutdown`. It tails the team-manager's own log, so a crash replays from its
 * checkpoint; every command it sends has an id derived from the request_id, so a replay is a no-op.
 */
@Injectable()
export class ShutdownBridge extends EventProcessor<BridgedEvent> {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    store: EventStore,
  ) {
    super(store, { name: 'process:shutdown-bridge', types: ['team.shutdown-requested', 'mailbox.shutdown-answered'], batchSize: 50 });
  }

  protected async handle(events: BridgedEvent[]): Promise<void> {
    for (const event of events) await this.bridge(event);
  }

  private async bridge(event: BridgedEvent): Promise<void> {
    if (event.type === 'team.shutdown-requested') {
      const team = event.streamId.slice('team-'.length);
      const lead = event.data.requestedBy;
      await this.settle(request(this.nc, openInbox, { team, memberId: lead, role: 'lead' }, { commandId: `bridge:lead:${event.data.shutdownId}` }));
      for (const { member, requestId } of event.data.requests) {
        await this.settle(request(this.nc, openInbox, { team, memberId: member, role: 'member' }, { commandId: `bridge:inbox:${requestId}` }));
        await this.settle(
          request(
            this.nc,
            sendMessage,
            { type: 'shutdown_request', team, from: lead, to: member, requestId, ...(event.data.reason ? { body: event.data.reason } : {}) },
            { commandId: `bridge:request:${requestId}` },
          ),
        );
      }
      return;
    }
    const { team, requestId, from, approve, reason } = event.data;
    await this.settle(
      request(this.nc, respondTeamShutdown, { team, member: from, requestId, approve, ...(reason ? { reason } : {}) }, { commandId: `bridge:answer:${requestId}` }),
    );
  }

  /** Domain refusals are final (logged unless expected); timeouts and outages fail the batch so it is retried. */
  private async settle(call: Promise<unknown>): Promise<void> {
    try {
      await call;
    } catch (error) {
      if (!(error instanceof HeadspaceError) || retryable(error.code)) throw error;
      if (!EXPECTED.has(error.code)) this.logger.warn(`not bridged: ${error.code} ${error.message}`);
    }
  }
}
