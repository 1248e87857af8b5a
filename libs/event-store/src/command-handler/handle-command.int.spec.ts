import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decider } from '../decider';
import { EventStore } from '../event-store';
import { migrate } from '../migrate';
import { handleCommand } from './handle-command';

/** A ticket dispenser: each command takes the next number, so a decision on a stale state would repeat one. */
type TicketEvent = { type: 'ticket.taken'; data: { ticket: number; by: string } };
type TicketCommand = { type: 'take'; by: string };
interface Tickets {
  taken: number;
  holders: string[];
}
const tickets: Decider<TicketCommand, Tickets, TicketEvent> = {
  initialState: () => ({ taken: 0, holders: [] }),
  evolve: (state, event) => ({ taken: event.data.ticket, holders: [...state.holders, event.data.by] }),
  decide: (command, state) => [{ type: 'ticket.taken', data: { ticket: state.taken + 1, by: command.by } }],
};

let db: TestDatabase;
let store: EventStore;
const dispenser = () => `dispenser-${randomUUID()}`;
const take = (by: string) => ({ type: 'take' as const, by });
const ticketsOf = async (streamId: string) => (await store.readStream(streamId)).map((e) => (e.data as TicketEvent['data']).ticket);

beforeAll(async () => {
  db = await createTestDatabase('handle-command');
  await migrate(db.pool, { schema: 'hc' });
  store = new EventStore({ pool: db.pool, schema: 'hc' });
});
afterAll(() => db?.drop());

describe('handleCommand', () => {
  it('decides against the stream as read and appends at its version', async () => {
    const streamId = dispenser();
    await handleCommand(store, tickets, streamId, take('a'), {});
    const second = await handleCommand(store, tickets, streamId, take('b'), {});
    expect(second).toMatchObject({ events: [{ data: { ticket: 2, by: 'b' } }], state: { taken: 2, holders: ['a', 'b'] }, streamVersion: 2n, replayed: false });
    expect(await ticketsOf(streamId)).toEqual([1, 2]);
  });

  it('retries a lost version race on a fresh read and decides again', async () => {
    const streamId = dispenser();
    let attempts = 0;
    const outcome = await handleCommand(store, tickets, streamId, take('late'), {}, {
      before: async () => {
        // A competitor appends between this attempt's read and its append, once.
        if (++attempts === 1) await store.append(streamId, [{ type: 'ticket.taken', data: { ticket: 1, by: 'rival' } }], { expected: 'any' });
      },
    });
    expect(attempts).toBe(2);
    expect(outcome.events).toEqual([{ type: 'ticket.taken', data: { ticket: 2, by: 'late' } }]);
    expect(await ticketsOf(streamId)).toEqual([1, 2]);
  });

  it('gives up after a bounded number of lost races with EVENTSTORE.RETRIES_EXHAUSTED, having appended nothing of its own', async () => {
    const streamId = dispenser();
    let attempts = 0;
    const error = await handleCommand(store, tickets, streamId, take('loser'), {}, {
      before: async ({ state }) => {
        attempts++;
        await store.append(streamId, [{ type: 'ticket.taken', data: { ticket: state.taken + 1, by: 'rival' } }], { expected: 'any' });
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EVENTSTORE.RETRIES_EXHAUSTED', details: { attempts: 5 } });
    expect(attempts).toBe(5);
    expect((await store.readStream(streamId)).map((e) => (e.data as TicketEvent['data']).by)).not.toContain('loser');
  });

  it('answers a retried command id with its first result and appends nothing, also after other commands changed the stream', async () => {
    const streamId = dispenser();
    const commandId = randomUUID();
    const first = await handleCommand(store, tickets, streamId, take('first'), { commandId });
    await handleCommand(store, tickets, streamId, take('second'), {});
    await handleCommand(store, tickets, streamId, take('third'), {});
    const again = await handleCommand(store, tickets, streamId, take('first'), { commandId });
    expect(again).toEqual({ ...first, replayed: true });
    expect(again.state).toEqual({ taken: 1, holders: ['first'] });
    expect(await ticketsOf(streamId)).toEqual([1, 2, 3]);
  });

  it('in turn mode serialises 50 concurrent commands on one stream: every one lands, each on its own ticket', async () => {
    const streamId = dispenser();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => handleCommand(store, tickets, streamId, take(`agent-${i}`), {}, { turn: true })),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(await ticketsOf(streamId)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('in turn mode, a retried command id sent amid others is appended once and answered alike each time', async () => {
    const streamId = dispenser();
    const commandId = randomUUID();
    const outcomes = await Promise.all([
      ...Array.from({ length: 5 }, () => handleCommand(store, tickets, streamId, take('retried'), { commandId }, { turn: true })),
      ...Array.from({ length: 10 }, (_, i) => handleCommand(store, tickets, streamId, take(`other-${i}`), {}, { turn: true })),
    ]);
    const retried = outcomes.slice(0, 5).map(({ replayed: _replayed, ...answer }) => answer);
    for (const answer of retried) expect(answer).toEqual(retried[0]);
    expect((await store.readStream(streamId)).filter((e) => e.metadata.commandId === commandId)).toHaveLength(1);
    expect(await ticketsOf(streamId)).toHaveLength(11);
  });

  it("puts the context's correlation, causation and trace context on every event, with the command id", async () => {
    const streamId = dispenser();
    const ctx = {
      commandId: randomUUID(),
      correlationId: randomUUID(),
      causationId: randomUUID(),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'hs=1',
    };
    await handleCommand(store, tickets, streamId, take('traced'), ctx, { metadata: { team: 'alpha' } });
    const [event] = await store.readStream(streamId);
    expect(event.metadata).toEqual({ ...ctx, team: 'alpha' });
  });

  it('without a context, correlation and causation name the command itself', async () => {
    const streamId = dispenser();
    const { commandId } = await handleCommand(store, tickets, streamId, take('alone'), {});
    const [event] = await store.readStream(streamId);
    expect(event.metadata).toEqual({ commandId, correlationId: commandId, causationId: commandId });
  });

  it('appends the events routed elsewhere to their own streams in the same transaction, all or nothing', async () => {
    const streamId = dispenser();
    const copy = `receipt-${randomUUID()}`;
    await store.append(copy, [{ type: 'ticket.taken', data: { ticket: 0, by: 'squatter' } }], { expected: 'no-stream' });
    const fanOut: Decider<TicketCommand, Tickets, TicketEvent> = {
      ...tickets,
      decide: (command, state) => [...tickets.decide(command, state), { type: 'ticket.taken', data: { ticket: -1, by: 'receipt' } }],
    };
    const route = (event: TicketEvent) => (event.data.ticket < 0 ? { streamId: copy, expected: 'no-stream' as const } : undefined);
    const error = await handleCommand(store, fanOut, streamId, take('a'), {}, { route, retry: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EVENTSTORE.WRONG_EXPECTED_VERSION' });
    expect(await store.readStream(streamId)).toEqual([]);
    const fresh = `receipt-${randomUUID()}`;
    await handleCommand(store, fanOut, streamId, take('a'), {}, { route: (e) => (e.data.ticket < 0 ? { streamId: fresh, expected: 'no-stream' } : undefined) });
    expect(await ticketsOf(streamId)).toEqual([1]);
    expect(await ticketsOf(fresh)).toEqual([-1]);
  });
});
