import type * as Contracts from '@headspace/contracts';
import type { EventData, EventDefinition } from '@headspace/contracts';
import type { CloudEvent } from '@headspace/messaging';

type ContractExports = typeof Contracts;

/**
 * Every event definition the contracts export (`defineEvent` results), found by type: a new event
 * in `@headspace/contracts` appears here with no edit. Definitions whose type is a plain `string`
 * (erased by an annotation) would widen the union to nothing useful, so they are left out.
 */
type HeadspaceEventDefinition = {
  [K in keyof ContractExports]: ContractExports[K] extends EventDefinition<infer _Schema, infer T> ? (string extends T ? never : ContractExports[K]) : never;
}[keyof ContractExports];

/** `<category>.<name>` of every Headspace event, e.g. `task.claimed`. */
export type HeadspaceEventType = HeadspaceEventDefinition['type'];

/** The payload of one event type, as its zod contract outputs it. */
export type HeadspaceEventData<T extends HeadspaceEventType> = EventData<Extract<HeadspaceEventDefinition, { type: T }>>;

/** The CloudEvent of one event type (`type` is `headspace.<category>.<name>`). */
export type HeadspaceEventOf<T extends HeadspaceEventType> = Omit<CloudEvent<HeadspaceEventData<T>>, 'type'> & { type: `headspace.${T}` };

/** Any Headspace event as a subscriber receives it, discriminated by `type`. */
export type HeadspaceEvent = { [T in HeadspaceEventType]: HeadspaceEventOf<T> }[HeadspaceEventType];

export type { CloudEvent };
