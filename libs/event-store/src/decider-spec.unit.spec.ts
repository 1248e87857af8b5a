import { describe, expect, it } from 'vitest';
import type { Decider } from './decider';
import { DeciderSpec } from './decider-spec';

type Cmd = { type: 'open'; id: string } | { type: 'close'; at: string };
type Ev = { type: 'opened'; id: string } | { type: 'closed'; at: string };
type St = { status: 'none' | 'open' | 'closed' };

class NotOpen extends Error {}

const door: Decider<Cmd, St, Ev> = {
  initialState: () => ({ status: 'none' }),
  decide: (cmd, state) => {
    if (cmd.type === 'open') return state.status === 'none' ? [{ type: 'opened', id: cmd.id }] : [];
    if (state.status !== 'open') throw new NotOpen('not open');
    return [{ type: 'closed', at: cmd.at }];
  },
  evolve: (state, ev) => ({ status: ev.type === 'opened' ? 'open' : 'closed' }),
};

describe('DeciderSpec given/when/then', () => {
  it('passes when the decider emits exactly the expected events', () => {
    DeciderSpec.for(door).given([{ type: 'opened', id: 'd1' }]).when({ type: 'close', at: 't1' }).then([{ type: 'closed', at: 't1' }]);
  });

  it('fails with both event lists when the decider emits something else', () => {
    expect(() => DeciderSpec.for(door).given([]).when({ type: 'open', id: 'd1' }).then([])).toThrow(/expected: \[\]/);
  });

  it('thenThrows matches the error class, and fails when nothing is thrown', () => {
    DeciderSpec.for(door).given([]).when({ type: 'close', at: 't' }).thenThrows(NotOpen);
    expect(() => DeciderSpec.for(door).given([]).when({ type: 'open', id: 'x' }).thenThrows(NotOpen)).toThrow(/Expected the decider to throw/);
  });
});
