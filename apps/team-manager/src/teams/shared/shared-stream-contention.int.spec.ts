import { createTeam, openInbox, registerPersona, sendMessage, spawnTeammate, takeUnread, type HeadspaceError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../../testing/team-manager-harness';
import { teamDecider } from '../team.decider';
import { TeamCommandExecutor } from './team-command.executor';

/**
 * Streams many independent commands share (a team's roster, its mailbox registry, the persona
 * registry): commands that do not conflict in the domain must not fail because they arrived
 * together, on however many replicas. Two instances serve every subject here.
 */
let h: TeamManagerHarness;
const slow = { timeoutMs: 60_000 };

beforeAll(async () => {
  h = await startTeamManager('contention');
  await h.addInstance();
});
afterAll(async () => {
  await h?.close();
});

const settle = <T>(sends: Array<Promise<T>>) =>
  Promise.all(sends.map((p) => p.then(() => undefined, (e: HeadspaceError) => e.code)));

const eventsOf = async (streamId: string, type: string) =>
  Number((await h.db.pool.query(`SELECT count(*) AS n FROM team_manager.events WHERE stream_id = $1 AND type = $2`, [streamId, type])).rows[0].n);

const newTeam = async () => {
  const name = `crowd-${randomBytes(4).toString('hex')}`;
  await h.send(createTeam, { name });
  return name;
};

describe('independent commands on one shared stream, two replicas', () => {
  it('40 teammates spawned into one team at once all join it, each once, each with its inbox', async () => {
    const team = await newTeam();
    const failures = await settle(Array.from({ length: 40 }, (_, i) => h.send(spawnTeammate, { team, name: `agent-${i}`, task: `part ${i}` }, slow)));
    expect(failures.filter(Boolean)).toEqual([]);
    expect(await eventsOf(`team-${team}`, 'teammate.spawned')).toBe(40);
    expect(await eventsOf(`mailbox-${team}`, 'mailbox.inbox-opened')).toBe(40);
  });

  it('40 roster commands through ten executors at once (as ten replicas would run them) all land, each once', async () => {
    const team = await newTeam();
    const store = h.apps[0].get(EventStore);
    const replicas = Array.from({ length: 10 }, () => new TeamCommandExecutor(store));
    const spawn = (i: number) => {
      const command = { type: 'spawn-teammate' as const, team, memberId: randomUUID(), sessionUuid: randomUUID(), name: `worker-${i}`, agentId: 'default', task: `part ${i}`, defaultMaxDepth: 3, now: new Date().toISOString() };
      return replicas[i % replicas.length].execute(team, { commandId: randomUUID(), metadata: {} }, (state) => teamDecider.decide(command, state), (d) => d);
    };
    const failures = await settle(Array.from({ length: 40 }, (_, i) => spawn(i)));
    expect(failures.filter(Boolean)).toEqual([]);
    expect(await eventsOf(`team-${team}`, 'teammate.spawned')).toBe(40);
  });

  it('40 inboxes opened in one team at once are all registered once', async () => {
    const team = await newTeam();
    const failures = await settle(Array.from({ length: 40 }, (_, i) => h.send(openInbox, { team, memberId: `m-${i}`, role: 'member' }, slow)));
    expect(failures.filter(Boolean)).toEqual([]);
    expect(await eventsOf(`mailbox-${team}`, 'mailbox.inbox-opened')).toBe(40);
  });

  it('a lead taking its unread queue while 40 members message it gets every message exactly once, no take refused', async () => {
    const team = await newTeam();
    await h.send(openInbox, { team, memberId: 'lead', role: 'lead' });
    for (let i = 0; i < 40; i++) await h.send(openInbox, { team, memberId: `m-${i}`, role: 'member' });
    const summary = 'status update from a member today';
    const sends = Array.from({ length: 40 }, (_, i) => h.send(sendMessage, { team, type: 'message', from: `m-${i}`, to: 'lead', body: `from m-${i}`, summary }, slow));
    const takes = Array.from({ length: 20 }, () => h.send(takeUnread, { team, memberId: 'lead' }, slow));
    const [sent, taken] = await Promise.all([settle(sends), Promise.all(takes.map((p) => p.then((r) => ({ r, code: undefined }), (e: HeadspaceError) => ({ r: undefined, code: e.code }))))]);
    expect(sent.filter(Boolean)).toEqual([]);
    expect(taken.filter((t) => t.code !== undefined).map((t) => t.code)).toEqual([]);
    const rest = await h.send(takeUnread, { team, memberId: 'lead' });
    const bodies = [...taken.flatMap((t) => t.r!.messages), ...rest.messages].map((m) => m.body);
    expect(bodies.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `from m-${i}`).sort());
  });

  it('40 personas registered at once are all in the registry, each once', async () => {
    const prefix = `p${randomBytes(3).toString('hex')}`;
    const failures = await settle(Array.from({ length: 40 }, (_, i) => h.send(registerPersona, { personaId: `${prefix}-${i}`, name: `Persona ${i}` }, slow)));
    expect(failures.filter(Boolean)).toEqual([]);
    const { rows } = await h.db.pool.query(
      `SELECT count(*) AS n FROM team_manager.events WHERE stream_id = 'persona-registry' AND type = 'persona.registered' AND data -> 'persona' ->> 'personaId' LIKE $1`,
      [`${prefix}-%`],
    );
    expect(Number(rows[0].n)).toBe(40);
  });
});
