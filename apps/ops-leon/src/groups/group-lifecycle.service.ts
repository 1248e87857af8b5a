import { Injectable } from '@nestjs/common';
import { exceptionGroupStreamId } from '@headspace/contracts';
import { EventStore, handleCommand, type CommandContext, type CommandOutcome } from '@headspace/event-store';
import { opsMetrics } from '../ops-metrics';
import { groupDecider, type GroupCommand, type GroupEvent, type Lifecycle } from './group.decider';

type Listener = (groupId: string, state: Lifecycle) => void;

/**
 * Every lifecycle command on a group goes through here: the operator's (transition-group), the
 * ingest path's (open, spike, regress) and, later, triage's and remediation's. It decides on the
 * group's own stream (read-your-writes), tells the ingest cache the new state, and times resolutions.
 */
@Injectable()
export class GroupLifecycle {
  private readonly listeners: Listener[] = [];

  constructor(private readonly store: EventStore) {}

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  async run(groupId: string, command: GroupCommand, ctx: CommandContext): Promise<CommandOutcome<Lifecycle, GroupEvent>> {
    const outcome = await handleCommand(this.store, groupDecider, exceptionGroupStreamId(groupId), command, ctx);
    if (!outcome.replayed && outcome.events.length > 0) {
      for (const listener of this.listeners) listener(groupId, outcome.state);
      const resolved = outcome.events.find((e) => e.type === 'group.resolved');
      if (resolved && outcome.state.status !== 'none') opsMetrics.resolved(outcome.state.openedAt, resolved.data.at);
    }
    return outcome;
  }

  /** The group's lifecycle as its stream has it now. */
  async load(groupId: string): Promise<Lifecycle> {
    const events = await this.store.readStream(exceptionGroupStreamId(groupId));
    return events.reduce((state, event) => groupDecider.evolve(state, event as unknown as GroupEvent), groupDecider.initialState());
  }
}
