import { randomUUID } from 'node:crypto';
import { createTeam, getTeam, requestTeamShutdown, sendMessage, spawnTeammate, takeUnread } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';

let tm: TeamManagerHarness;

beforeAll(async () => {
  tm = await startTeamManager('shutdown-bridge');
});
afterAll(() => tm?.close());

async function teamWith(members: string[]): Promise<string> {
  const team = `bridge-${randomUUID().slice(0, 8)}`;
  await tm.send(createTeam, { name: team });
  for (const name of members) await tm.send(spawnTeammate, { team, name, task: `work of ${name}` });
  return team;
}

/** Waits until the member's inbox holds a shutdown_request and returns it. */
const shutdownRequestFor = (team: string, member: string) =>
  waitFor(async () => {
    const { messages } = await tm.send(takeUnread, { team, memberId: member });
    return messages.find((m) => m.type === 'shutdown_request');
  }, { message: `${member} received the shutdown_request` });

describe('the team shutdown protocol travels through the mailboxes', () => {
  it("every member receives the team's shutdown_request with its own request_id in its inbox", async () => {
    const team = await teamWith(['researcher-1', 'writer-1']);
    const { requests } = await tm.send(requestTeamShutdown, { team, reason: 'The goal is done.' });
    for (const { member, requestId } of requests) {
      const message = await shutdownRequestFor(team, member);
      expect(message).toMatchObject({ type: 'shutdown_request', requestId, from: 'team-lead' });
    }
  });

  it('members answering through their mailbox complete the team shutdown', async () => {
    const team = await teamWith(['coder-1', 'coder-2']);
    await tm.send(requestTeamShutdown, { team });
    for (const member of ['coder-1', 'coder-2']) {
      const request = await shutdownRequestFor(team, member);
      await tm.send(sendMessage, { type: 'shutdown_response', team, from: member, requestId: request.requestId!, approve: true });
    }
    const done = await waitFor(async () => {
      const view = await tm.send(getTeam, { name: team });
      return view.status === 'shutdown' ? view : undefined;
    }, { message: 'team shut down' });
    expect(done.shutdown?.requests.map((r) => r.answer)).toEqual(['approved', 'approved']);
  });

  it('a rejection through the mailbox aborts the shutdown with its reason', async () => {
    const team = await teamWith(['tester-1']);
    await tm.send(requestTeamShutdown, { team });
    const request = await shutdownRequestFor(team, 'tester-1');
    await tm.send(sendMessage, { type: 'shutdown_response', team, from: 'tester-1', requestId: request.requestId!, approve: false, reason: 'tests still running' });
    const aborted = await waitFor(async () => {
      const view = await tm.send(getTeam, { name: team });
      return view.shutdown?.outcome === 'aborted' ? view : undefined;
    }, { message: 'shutdown aborted' });
    expect(aborted.status).toBe('active');
    expect(aborted.shutdown?.requests[0]).toMatchObject({ member: 'tester-1', answer: 'rejected', reason: 'tests still running' });
  });
});
