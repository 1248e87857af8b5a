import type { EventDefinition } from '../messages';
import { approvalEvents } from './approval.contracts';
import { fileLockEvents } from './file-lock.contracts';
import { mailboxEvents } from './mailbox.contracts';
import { manifestEvents } from './manifest.contracts';
import { memberEvents } from './member.contracts';
import { personaEvents } from './persona.contracts';
import { taskEvents } from './task.contracts';
import { teamEvents } from './team.contracts';

export * from './team.contracts';
export * from './task.contracts';
export * from './mailbox.contracts';
export * from './list-inboxes.contracts';
export * from './persona.contracts';
export * from './member.contracts';
export * from './approval.contracts';
export * from './manifest.contracts';
export * from './file-lock.contracts';

/** Every event the team-manager records: its EventStore validates against these. */
export const teamManagerEvents: EventDefinition[] = [
  ...teamEvents,
  ...taskEvents,
  ...mailboxEvents,
  ...personaEvents,
  ...memberEvents,
  ...approvalEvents,
  ...manifestEvents,
  ...fileLockEvents,
];
