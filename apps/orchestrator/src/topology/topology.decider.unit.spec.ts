import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { requestDecider, type RequestCommand, type RequestEvent } from './topology.decider';

const now = '2026-11-27T10:00:00.000Z';
const data = {
  requestId: 'fix-the-typo-1a2b3c4d',
  team: 'red',
  topology: 'ask' as const,
  auto: true,
  reasons: ['names 1 file: README.md', 'a small, clear change: one agent'],
  signals: { isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' as const },
  startedId: 'fix-the-typo-1a2b3c4d',
};
const chosen: RequestEvent = { type: 'request.topology-chosen', data: { ...data, at: now } };
const command: RequestCommand = { type: 'choose-topology', ...data, now };
const spec = DeciderSpec.for(requestDecider);

describe('request topology decider', () => {
  it('records the choice with its reasons', () => spec.given([]).when(command).then([chosen]));
  it('keeps the first choice for a retried request', () => spec.given([chosen]).when({ ...command, topology: 'run' }).then([]));
});
