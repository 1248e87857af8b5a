import { isDeepStrictEqual, inspect } from 'node:util';
import type { Decider } from './decider';

/**
 * Given/when/then for deciders, independent of the test framework:
 *
 *   DeciderSpec.for(teamDecider).given([teamCreated]).when(addMember).then([memberAdded]);
 *   DeciderSpec.for(teamDecider).given([]).when(addMember).thenThrows(TeamNotFound);
 */
export class DeciderSpec<C, S, E> {
  private constructor(private readonly decider: Decider<C, S, E>, private readonly history: E[] = []) {}

  static for<C, S, E>(decider: Decider<C, S, E>): DeciderSpec<C, S, E> {
    return new DeciderSpec(decider);
  }

  given(events: E[]): DeciderSpec<C, S, E> {
    return new DeciderSpec(this.decider, events);
  }

  when(command: C) {
    const run = () => {
      const state = this.history.reduce((s, e) => this.decider.evolve(s, e), this.decider.initialState());
      return this.decider.decide(command, state);
    };
    return {
      then: (expected: E[]): void => {
        const actual = run();
        if (!isDeepStrictEqual(actual, expected)) {
          throw new Error(`Decider produced unexpected events.\nexpected: ${inspect(expected, { depth: 8 })}\nactual:   ${inspect(actual, { depth: 8 })}`);
        }
      },
      thenThrows: (check: (new (...args: never[]) => Error) | ((error: unknown) => boolean)): void => {
        let thrown: unknown;
        try {
          run();
        } catch (error) {
          thrown = error;
        }
        if (thrown === undefined) throw new Error('Expected the decider to throw, but it returned events');
        const matches = check.prototype instanceof Error || check === Error
          ? thrown instanceof (check as new (...args: never[]) => Error)
          : (check as (error: unknown) => boolean)(thrown);
        if (!matches) throw new Error(`Decider threw an unexpected error: ${inspect(thrown)}`);
      },
    };
  }
}
