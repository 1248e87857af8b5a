import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { memberEvents, teammateSpawned, teammateTerminated, type EventData } from '@headspace/contracts';
import { formatPositionToken, type ConsumedEvent, type EventContext } from '@headspace/messaging';
import { teammateSessionIdFor, teamOfStream } from './teammate-session';
import { TeammateSessions, type TeammateEventSource } from './teammate-sessions.service';

/**
 * The team-manager's `teammate.spawned` and `teammate.terminated`, on one durable consumer (in log
 * order, one at a time; one wildcard filter over the teammate events, nats-server < 2.10 taking one
 * filter per consumer — the other teammate events pass through). Each handler first takes a
 * transaction-scoped advisory lock on the teammate's session id, so a spawn and a termination of
 * the same teammate never interleave, even in two orchestrator instances: whichever comes second
 * sees what the first did to the session's stream. The event id is recorded in the consumer's inbox
 * in the same transaction.
 */
@Controller()
export class TeammateSessionsConsumer {
  static readonly durable = 'orchestrator-teammate-sessions';

  constructor(private readonly teammates: TeammateSessions) {}

  @EventPattern(memberEvents, { durable: TeammateSessionsConsumer.durable, filterSubject: 'hs.evt.team-manager.teammate.>' })
  async apply(@Payload() event: ConsumedEvent<{ sessionKey?: string }>, @Ctx() { tx }: EventContext): Promise<void> {
    if (event.type !== teammateSpawned.type && event.type !== teammateTerminated.type) return;
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [teammateSessionIdFor(String(event.data.sessionKey))]);
    if (event.type === teammateSpawned.type) await this.teammates.start(sourceOf(event), event.data as EventData<typeof teammateSpawned>);
    else await this.teammates.stop(sourceOf(event), event.data as EventData<typeof teammateTerminated>);
  }
}

function sourceOf(event: ConsumedEvent): TeammateEventSource {
  return {
    team: teamOfStream(event.streamId),
    eventId: event.eventId,
    ...(event.transactionId ? { position: formatPositionToken('team-manager', { transactionId: event.transactionId, globalPosition: event.globalPosition }) } : {}),
  };
}
