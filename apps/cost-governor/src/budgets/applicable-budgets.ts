import { budgetIdOf, type Attribution } from '@headspace/contracts';

/** Every budget a call of this attribution counts against (those that exist apply). */
export function applicableBudgetIds(a: Attribution): string[] {
  return [
    budgetIdOf({ kind: 'session', sessionId: a.sessionId }),
    budgetIdOf({ kind: 'agent', team: a.team, persona: a.persona }),
    budgetIdOf({ kind: 'team', team: a.team }),
    budgetIdOf({ kind: 'project', project: a.project }),
  ];
}
