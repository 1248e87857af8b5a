import { HeadspaceError } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import type { PriceBook } from '../prices/price-book';
import { budgetDecider, reservedTotal, type ActiveBudget, type BudgetEvent, type BudgetState } from './budget.decider';
import { BudgetTick, firstEventId, type Folded } from './budget-tick';

const t0 = '2026-11-22T08:00:00.000Z';
const t1 = '2026-11-22T08:05:00.000Z';
const set = (budgetId: string, limitMicros: string): BudgetEvent => ({
  type: 'budget.set',
  data: { budgetId, scope: { kind: 'team', team: budgetId }, limitMicros, period: 'none', periodStart: '1970-01-01T00:00:00.000Z', setBy: 'ops', at: t0 },
});
const folded = (events: BudgetEvent[], version = BigInt(events.length)): Folded => ({ state: events.reduce<BudgetState>(budgetDecider.evolve, budgetDecider.initialState()), version });
const reserve = (reservationId: string, amountMicros: bigint) => ({ type: 'reserve', reservationId, amountMicros, inputTokens: 10, model: 'haiku', expiresAt: t1, now: t0 }) as const;
const meta = { correlationId: 'c' };
const noPrices = undefined as unknown as PriceBook;

const tickOf = (budgets: Record<string, Folded>, recorded?: string[]) => new BudgetTick(new Map(Object.entries(budgets)), recorded && new Set(recorded), noPrices);

describe('budget tick', () => {
  it('decides commands in order on the state the earlier ones left, chaining each stream\'s expected versions', () => {
    const tick = tickOf({ team: folded([set('team', '10000')], 3n), session: folded([]) });
    const runs = ['c1', 'c2', 'c3'].map((commandId) =>
      tick.run((t) => t.apply('team', reserve(commandId, 4_000n), commandId, meta)),
    );
    expect(runs.map((r) => r.ok)).toEqual([true, true, false]);
    expect(((runs[2] as { error: unknown }).error as HeadspaceError).code).toBe('BUDGET.EXCEEDED');
    expect(tick.appends.map((a) => [a.streamId, a.expected, a.commandId])).toEqual([
      ['budget-team', 3n, 'c1'],
      ['budget-team', 4n, 'c2'],
    ]);
    const team = tick.changed().get('team')!;
    expect(team.version).toBe(5n);
    expect(reservedTotal(team.state as ActiveBudget)).toBe(8_000n);
    expect([...tick.budgets(['session', 'team', 'team']).keys()]).toEqual(['team']);
  });

  it('undoes every change of a command that throws half-way and keeps the others', () => {
    const tick = tickOf({ a: folded([set('a', '10000')]), b: folded([set('b', '10')]) });
    const ok = tick.run((t) => t.apply('a', reserve('r1', 100n), 'c1', meta));
    const failed = tick.run((t) => {
      t.apply('a', reserve('r2', 100n), 'c2', meta);
      t.create('usage-x', [{ type: 'usage.recorded', data: {} }], 'c2', meta);
      return t.apply('b', reserve('r2', 100n), 'c2', meta);
    });
    expect([ok.ok, failed.ok]).toEqual([true, false]);
    expect(tick.appends.map((a) => a.commandId)).toEqual(['c1']);
    expect(Object.keys((tick.state('a') as ActiveBudget).reservations)).toEqual(['r1']);
    expect(tick.version('a')).toBe(2n);
    expect(tick.appended('c2', 'budget-a')).toBe(false);
  });

  it('says when a command asked whether it ran before in a tick that was not probed', () => {
    const tick = tickOf({ a: folded([set('a', '10000')]) });
    tick.run((t) => t.alreadyApplied('c1', ['a']));
    expect(tick.lastAskedUnprobed).toBe(true);
    tick.run((t) => t.apply('a', reserve('r1', 1n), 'c2', meta));
    expect(tick.lastAskedUnprobed).toBe(false);
    const probed = tickOf({ a: folded([]) }, []);
    probed.run((t) => t.alreadyApplied('c1', ['a']));
    expect(probed.lastAskedUnprobed).toBe(false);
  });

  it('knows a command already ran from its probed first event or from earlier in the tick', () => {
    const tick = tickOf({ a: folded([set('a', '10000')]), b: folded([set('b', '10000')]) }, [firstEventId('old', 'budget-b')]);
    expect(tick.alreadyApplied('old', ['a', 'b'])).toBe(true);
    expect(tick.alreadyApplied('new', ['a', 'b'])).toBe(false);
    tick.run((t) => t.create('usage-1', [{ type: 'usage.recorded', data: {} }], 'new', meta));
    expect(tick.appended('new', 'usage-1')).toBe(true);
    expect(tick.appends[0].expected).toBe('no-stream');
  });

  it('creates a budget that did not exist at no-stream and lets later commands see it', () => {
    const tick = tickOf({ fresh: folded([], 0n) });
    tick.run((t) =>
      t.apply('fresh', { type: 'set-budget', budgetId: 'fresh', scope: { kind: 'team', team: 'fresh' }, limitMicros: 100n, period: 'none', setBy: 'ops', now: t0 }, 'set', meta),
    );
    const reserved = tick.run((t) => t.apply('fresh', reserve('r1', 50n), 'c1', meta));
    expect(reserved.ok).toBe(true);
    expect(tick.appends.map((a) => a.expected)).toEqual(['no-stream', 1n]);
  });
});
