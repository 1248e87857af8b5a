import type { EventDefinition } from '../messages';
import { groupEvents } from './group.contracts';
import { notificationEvents } from './notification.contracts';
import { projectEvents } from './project.contracts';

export * from './exception-report.contracts';
export * from './internal-report.contracts';
export * from './project.contracts';
export * from './group.contracts';
export * from './notification.contracts';

/** Every event ops-leon records: its EventStore validates against these. */
export const opsLeonEvents: EventDefinition[] = [...projectEvents, ...groupEvents, ...notificationEvents];
