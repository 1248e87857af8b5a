import { Controller, Inject } from '@nestjs/common';
import { Payload, EventPattern } from '@nestjs/microservices';
import { ErrorCodes, groupEvents, groupOpened, groupRegressed, groupReopened, HeadspaceError, type GroupState } from '@headspace/contracts';
import type { ConsumedEvent } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import { GroupLifecycle } from '../groups/group-lifecycle.service';
import type { TriageConfig } from './triage.config';

/** The events that put a group in front of triage, and the state each leaves it in. */
const WAITING_IN: Record<string, GroupState> = { [groupOpened.type]: 'NEW', [groupReopened.type]: 'NEW', [groupRegressed.type]: 'REGRESSED' };
const GROUP_EVENTS = groupEvents.filter((d) => d.category === 'group');

/**
 * A group opened, reopened or regressed: Leon starts analysing it (`start-analysis` by leon),
 * through its own durable JetStream consumer. Only that short append happens here; the triage
 * worker does the rules and the model calls outside this inbox transaction. The command id derives
 * from the event id, so a redelivered event starts nothing twice; an event whose group has moved
 * on since (dismissed, already analysing) starts nothing. With HS_OPS_TRIAGE=off groups stay NEW.
 */
@Controller()
export class TriageConsumer {
  static readonly durable = 'ops-leon-triage';

  constructor(
    private readonly groups: GroupLifecycle,
    @Inject(APP_CONFIG) private readonly config: TriageConfig,
  ) {}

  @EventPattern(GROUP_EVENTS, {
    durable: TriageConsumer.durable,
    // One filter for every group event (nats-server < 2.10 takes one filter per consumer); the others pass through.
    filterSubject: 'hs.evt.ops-leon.group.>',
    backoffMs: [250, 1_000, 5_000, 15_000],
  })
  async apply(@Payload() event: ConsumedEvent<{ groupId: string }>): Promise<void> {
    const waitingIn = WAITING_IN[event.type];
    if (!waitingIn || this.config.HS_OPS_TRIAGE === 'off') return;
    const { groupId } = event.data;
    const state = await this.groups.load(groupId);
    if (state.status !== waitingIn) return;
    try {
      await this.groups.run(
        groupId,
        { type: 'start-analysis', by: 'leon', reason: `triage of ${event.type}`, now: new Date().toISOString() },
        { commandId: `triage:${event.eventId}:start`, causationId: event.eventId, ...(event.metadata.correlationId ? { correlationId: event.metadata.correlationId } : {}) },
      );
    } catch (error) {
      // Moved on between the read and the append (an operator's move): nothing to analyse.
      if (error instanceof HeadspaceError && error.code === ErrorCodes.opsIllegalTransition) return;
      throw error;
    }
  }
}
