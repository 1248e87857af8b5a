import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, listMessages, openInbox, peekUnread, sendMessage, takeUnread, type RequestOf } from '@headspace/contracts';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { MailboxProjection } from './mailbox.projection';

let h: TeamManagerHarness;
const summary = 'please review the auth module today';

beforeAll(async () => {
  h = await startTeamManager('mailboxes');
});
afterAll(async () => {
  await h?.close();
});

/** A fresh team with a lead and members, each with an open inbox. */
async function team(members: string[] = ['researcher-1', 'researcher-2'], lead = 'lead') {
  const name = `mb-${randomUUID().slice(0, 8)}`;
  await h.send(createTeam, { name });
  await h.send(openInbox, { team: name, memberId: lead, role: 'lead' });
  for (const memberId of members) await h.send(openInbox, { team: name, memberId, role: 'member' });
  return name;
}

const dm = (teamName: string, from: string, to: string, body: string, extra: Partial<RequestOf<typeof sendMessage>> = {}) =>
  h.send(sendMessage, { team: teamName, type: 'message', from, to, body, summary, ...extra } as RequestOf<typeof sendMessage>);

/** The mailbox projection's rows for a member, once it shows `count` of them. */
const projected = (teamName: string, memberId: string, count: number, unreadOnly = false) =>
  waitFor(
    async () => {
      const { messages } = await h.send(listMessages, { team: teamName, memberId, unreadOnly });
      return messages.length === count ? messages : undefined;
    },
    { message: `${count} messages projected for ${memberId}` },
  );

async function eventCount(): Promise<number> {
  return Number((await h.db.pool.query(`SELECT count(*) FROM team_manager.events`)).rows[0].count);
}

describe('Feature 3: Mailbox Communication', () => {
  it('Send direct message to teammate', async () => {
    const t = await team();
    const sent = await dm(t, 'researcher-1', 'researcher-2', 'Please review the auth module', { topic: 'question' });
    expect(sent).toMatchObject({ recipients: ['researcher-2'] });
    const [message] = await projected(t, 'researcher-2', 1);
    expect(message).toMatchObject({ messageId: sent.messageId, from: 'researcher-1', type: 'message', body: 'Please review the auth module', topic: 'question', read: false });
  });

  it('Message delivery is automatic', async () => {
    // The recipient does nothing (no poll, no fetch): the copy is in its inbox as soon as the send returns.
    const t = await team();
    await dm(t, 'researcher-1', 'researcher-2', 'auto');
    const taken = await h.send(takeUnread, { team: t, memberId: 'researcher-2' });
    expect(taken.messages.map((m) => m.body)).toEqual(['auto']);
    await projected(t, 'researcher-2', 1);
  });

  it('Message delivered only to intended recipient', async () => {
    const t = await team(['researcher-1', 'researcher-2', 'researcher-3']);
    await dm(t, 'researcher-1', 'researcher-2', 'just for you');
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages).toHaveLength(1);
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-3' })).messages).toEqual([]);
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-1' })).messages).toEqual([]);
  });

  it('Plain text output is NOT visible to teammates', async () => {
    // Only send-message reaches a teammate: there is no "output" message type, so plain output
    // offered as a message is refused and nothing lands in any inbox.
    const t = await team();
    const before = await eventCount();
    const error = await h.sendError(sendMessage, { team: t, type: 'output', from: 'researcher-1', body: 'I am thinking out loud' });
    expect(error).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'type' });
    expect(await eventCount()).toBe(before);
    for (const memberId of ['researcher-2', 'lead']) expect((await h.send(takeUnread, { team: t, memberId })).messages).toEqual([]);
  });

  it('Broadcast message to all teammates', async () => {
    const t = await team();
    const sent = await h.send(sendMessage, { team: t, type: 'broadcast', from: 'lead', body: 'standup in 5', summary: 'standup starts in five minutes everyone' });
    expect(sent.recipients).toEqual(['researcher-1', 'researcher-2']);
    for (const memberId of sent.recipients) {
      const [copy] = (await h.send(takeUnread, { team: t, memberId })).messages;
      expect(copy).toMatchObject({ messageId: sent.messageId, type: 'broadcast', from: 'lead', body: 'standup in 5' });
    }
  });

  it('Broadcast delivers to all N teammates', async () => {
    const members = Array.from({ length: 8 }, (_, i) => `agent-${i}`);
    const t = await team(members);
    const sent = await h.send(sendMessage, { team: t, type: 'broadcast', from: 'agent-0', body: 'found it', summary: 'the bug is in the parser', topic: 'finding' });
    expect(sent.recipients).toHaveLength(8); // 7 other members + the lead
    const inboxes = await Promise.all(sent.recipients.map((memberId) => projected(t, memberId, 1)));
    expect(inboxes.map(([m]) => m.body)).toEqual(Array(8).fill('found it'));
  });

  it('Broadcast excludes sender', async () => {
    const t = await team(['a', 'b', 'c']);
    const sent = await h.send(sendMessage, { team: t, type: 'broadcast', from: 'b', body: 'hello', summary: 'hello to everyone on this team' });
    expect(sent.recipients).not.toContain('b');
    expect(sent.recipients.sort()).toEqual(['a', 'c', 'lead']);
    expect((await h.send(takeUnread, { team: t, memberId: 'b' })).messages).toEqual([]);
  });

  it('Send shutdown request to member', async () => {
    const t = await team();
    const sent = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-1' });
    expect(sent).toMatchObject({ recipients: ['researcher-1'], requestId: expect.any(String) });
    const [request] = (await h.send(takeUnread, { team: t, memberId: 'researcher-1' })).messages;
    expect(request).toMatchObject({ type: 'shutdown_request', from: 'lead', requestId: sent.requestId });
    // Only the lead asks members to shut down.
    const error = await h.sendError(sendMessage, { team: t, type: 'shutdown_request', from: 'researcher-2', to: 'researcher-1' });
    expect(error).toMatchObject({ code: 'MAILBOX.NOT_ALLOWED', field: 'from' });
  });

  it('Shutdown response with approval', async () => {
    const t = await team();
    const { requestId } = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-1' });
    const answer = await h.send(sendMessage, { team: t, type: 'shutdown_response', from: 'researcher-1', requestId: requestId!, approve: true });
    expect(answer.recipients).toEqual(['lead']);
    const [response] = (await h.send(takeUnread, { team: t, memberId: 'lead' })).messages;
    expect(response).toMatchObject({ type: 'shutdown_response', from: 'researcher-1', requestId, approve: true });
  });

  it('Shutdown response with rejection and reason', async () => {
    const t = await team();
    const { requestId } = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-1' });
    const noReason = await h.sendError(sendMessage, { team: t, type: 'shutdown_response', from: 'researcher-1', requestId, approve: false });
    expect(noReason).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'reason' });
    await h.send(sendMessage, { team: t, type: 'shutdown_response', from: 'researcher-1', requestId: requestId!, approve: false, reason: 'still running the test suite' });
    const [response] = (await h.send(takeUnread, { team: t, memberId: 'lead' })).messages;
    expect(response).toMatchObject({ type: 'shutdown_response', approve: false, reason: 'still running the test suite' });
  });

  it('Shutdown protocol includes request_id', async () => {
    const t = await team();
    const first = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-1' });
    const second = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-2' });
    expect(first.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.requestId).not.toBe(first.requestId);
    const { rendered } = await h.send(takeUnread, { team: t, memberId: 'researcher-2' });
    expect(rendered).toContain(`request_id="${second.requestId}"`);
  });

  it('Response matches request_id', async () => {
    const t = await team();
    const { requestId } = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-1' });
    const before = await eventCount();
    // An id never issued, and a real id answered by a member it was not sent to: both refused, nothing appended.
    for (const [from, id] of [['researcher-1', randomUUID()], ['researcher-2', requestId!]] as const) {
      const error = await h.sendError(sendMessage, { team: t, type: 'shutdown_response', from, requestId: id, approve: true });
      expect(error).toMatchObject({ code: 'MAILBOX.UNKNOWN_REQUEST', field: 'requestId' });
    }
    expect(await eventCount()).toBe(before);
    await h.send(sendMessage, { team: t, type: 'shutdown_response', from: 'researcher-1', requestId: requestId!, approve: true });
    // Answered once: a second answer no longer matches an open request.
    const again = await h.sendError(sendMessage, { team: t, type: 'shutdown_response', from: 'researcher-1', requestId, approve: false, reason: 'changed my mind' });
    expect(again.code).toBe('MAILBOX.UNKNOWN_REQUEST');
  });

  it('Message summary provided for UI preview', async () => {
    const t = await team();
    await dm(t, 'researcher-1', 'researcher-2', 'A long body '.repeat(50));
    const [preview] = await projected(t, 'researcher-2', 1);
    expect(preview.summary).toBe(summary);
    const { rendered } = await h.send(takeUnread, { team: t, memberId: 'researcher-2' });
    expect(rendered).toContain(`summary="${summary}"`);
  });

  it('Summary limited to 5-10 words', async () => {
    const t = await team();
    const before = await eventCount();
    for (const bad of ['too short', 'one two three four five six seven eight nine ten eleven', 'x'.repeat(201)]) {
      const error = await h.sendError(sendMessage, { team: t, type: 'message', from: 'researcher-1', to: 'researcher-2', body: 'b', summary: bad });
      expect(error).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'summary' });
    }
    expect(await eventCount()).toBe(before);
    await dm(t, 'researcher-1', 'researcher-2', 'five', { summary: 'one two three four five' });
    await dm(t, 'researcher-1', 'researcher-2', 'ten', { summary: 'one two three four five six seven eight nine ten' });
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages).toHaveLength(2);
  });

  it('Idle notification sent to team lead', async () => {
    const t = await team();
    const sent = await h.send(sendMessage, { team: t, type: 'idle_notification', from: 'researcher-1' });
    expect(sent).toMatchObject({ recipients: ['lead'], suppressAutoReply: false });
    const { messages, rendered } = await h.send(takeUnread, { team: t, memberId: 'lead' });
    expect(messages).toMatchObject([{ type: 'idle_notification', from: 'researcher-1', suppressAutoReply: false }]);
    expect(rendered).toContain('type="idle_notification"');
  });

  it('Team lead does not auto-respond to idle during shutdown', async () => {
    const t = await team();
    const { requestId } = await h.send(sendMessage, { team: t, type: 'shutdown_request', from: 'lead', to: 'researcher-1' });
    const during = await h.send(sendMessage, { team: t, type: 'idle_notification', from: 'researcher-2' });
    expect(during.suppressAutoReply).toBe(true);
    const { messages, rendered } = await h.send(takeUnread, { team: t, memberId: 'lead' });
    expect(messages).toMatchObject([{ type: 'idle_notification', from: 'researcher-2', suppressAutoReply: true }]);
    expect(rendered).toContain('suppress_auto_reply="true"');
    await h.send(sendMessage, { team: t, type: 'shutdown_response', from: 'researcher-1', requestId: requestId!, approve: true });
    const after = await h.send(sendMessage, { team: t, type: 'idle_notification', from: 'researcher-2' });
    expect(after.suppressAutoReply).toBe(false);
  });

  it('Peer DM visibility (summary only)', async () => {
    const t = await team();
    await dm(t, 'researcher-1', 'researcher-2', 'the secret detail of the fix');
    const [leadCopy] = await projected(t, 'lead', 1);
    expect(leadCopy).toMatchObject({ from: 'researcher-1', peerTo: 'researcher-2', visibility: 'summary', summary, body: null });
    const { rendered } = await h.send(takeUnread, { team: t, memberId: 'lead' });
    expect(rendered).toContain('type="peer_dm_summary"');
    expect(rendered).not.toContain('secret detail');
    // The addressee gets the full message; a DM to or from the lead is not copied again.
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages[0].body).toBe('the secret detail of the fix');
    await dm(t, 'researcher-1', 'lead', 'to the lead directly');
    expect((await h.send(takeUnread, { team: t, memberId: 'lead' })).messages).toMatchObject([{ visibility: 'full', body: 'to the lead directly' }]);
  });

  it('Message persists if recipient offline', async () => {
    // Offline = no instance of the service running, then a fresh one: the copy lives in the log.
    const t = await team();
    await dm(t, 'researcher-1', 'researcher-2', 'read me when you are back');
    const old = h.apps.shift()!;
    await old.close();
    await h.addInstance();
    const { messages } = await h.send(takeUnread, { team: t, memberId: 'researcher-2' });
    expect(messages.map((m) => m.body)).toEqual(['read me when you are back']);
  });

  it('Message queue processed on next inference', async () => {
    const t = await team();
    for (const body of ['first', 'second <b>&', 'third']) await dm(t, 'researcher-1', 'researcher-2', body);
    await projected(t, 'researcher-2', 3, true);
    const { messages, rendered } = await h.send(takeUnread, { team: t, memberId: 'researcher-2' });
    expect(messages.map((m) => m.body)).toEqual(['first', 'second <b>&', 'third']);
    expect(rendered.split('\n')).toEqual([
      `<teammate-message teammate_id="researcher-1" type="message" summary="${summary}">first</teammate-message>`,
      `<teammate-message teammate_id="researcher-1" type="message" summary="${summary}">second &lt;b&gt;&amp;</teammate-message>`,
      `<teammate-message teammate_id="researcher-1" type="message" summary="${summary}">third</teammate-message>`,
    ]);
    // Marked read: the next inference gets nothing new, and the projection follows.
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages).toEqual([]);
    await projected(t, 'researcher-2', 0, true);
    expect((await h.send(listMessages, { team: t, memberId: 'researcher-2' })).messages.every((m) => m.read)).toBe(true);
  });
});

describe('mailboxes: inboxes, idempotency, concurrency, projection', () => {
  it('open-inbox is idempotent, refuses a second lead and a role change, and needs an existing team', async () => {
    const t = await team(['a']);
    expect(await h.send(openInbox, { team: t, memberId: 'a', role: 'member' })).toMatchObject({ opened: false });
    expect(await h.sendError(openInbox, { team: t, memberId: 'b', role: 'lead' })).toMatchObject({ code: 'MAILBOX.LEAD_ALREADY_EXISTS', field: 'role' });
    expect(await h.sendError(openInbox, { team: t, memberId: 'a', role: 'lead' })).toMatchObject({ code: 'MAILBOX.CONFLICT', field: 'role' });
    expect(await h.sendError(openInbox, { team: 'no-such-team', memberId: 'a', role: 'member' })).toMatchObject({ code: 'MAILBOX.UNKNOWN_TEAM', field: 'team' });
  });

  it('a retried send or take (same command id) acts once and answers as the first time', async () => {
    const t = await team();
    const commandId = randomUUID();
    const body = { team: t, type: 'broadcast' as const, from: 'lead', body: 'once', summary: 'this message must arrive only once' };
    const first = await h.send(sendMessage, body, { commandId });
    const again = await h.send(sendMessage, body, { commandId });
    expect(again).toEqual(first);
    const take = randomUUID();
    const taken = await h.send(takeUnread, { team: t, memberId: 'researcher-1' }, { commandId: take });
    expect(taken.messages.map((m) => m.body)).toEqual(['once']);
    // A retried take returns what the first one took, and marks nothing again.
    expect(await h.send(takeUnread, { team: t, memberId: 'researcher-1' }, { commandId: take })).toEqual(taken);
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-1' })).messages).toEqual([]);
  });

  it('peek-unread shows the unread queue without marking it read; a take through the peeked version leaves later mail unread', async () => {
    const t = await team();
    await dm(t, 'researcher-1', 'researcher-2', 'first');
    await dm(t, 'lead', 'researcher-2', 'second');
    const before = await eventCount();
    const peeked = await h.send(peekUnread, { team: t, memberId: 'researcher-2' });
    expect(peeked.messages.map((m) => m.body)).toEqual(['first', 'second']);
    expect(peeked.rendered).toContain('first');
    expect(await h.send(peekUnread, { team: t, memberId: 'researcher-2' })).toEqual(peeked);
    expect(await eventCount()).toBe(before);
    // Delivered after the peek: a take through the peeked version must not mark it read.
    await dm(t, 'researcher-1', 'researcher-2', 'third');
    const taken = await h.send(takeUnread, { team: t, memberId: 'researcher-2', throughVersion: peeked.throughVersion });
    expect(taken.messages.map((m) => m.body)).toEqual(['first', 'second']);
    expect(taken.throughVersion).toBe(peeked.throughVersion);
    expect((await h.send(peekUnread, { team: t, memberId: 'researcher-2' })).messages.map((m) => m.body)).toEqual(['third']);
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages.map((m) => m.body)).toEqual(['third']);
    expect((await h.send(peekUnread, { team: t, memberId: 'researcher-2' })).messages).toEqual([]);
  });

  it('peek-unread of an inbox the projection has not caught up with still sees its mail', async () => {
    const t = await team();
    const { runner } = h.apps[0].get(MailboxProjection);
    await runner.waitUntilCaughtUp();
    await h.db.pool.query(`DELETE FROM team_manager.mailbox_inboxes WHERE team = $1 AND member_id = 'researcher-1'`, [t]);
    await dm(t, 'lead', 'researcher-1', 'still here');
    expect((await h.send(peekUnread, { team: t, memberId: 'researcher-1' })).messages.map((m) => m.body)).toEqual(['still here']);
    expect((await h.send(takeUnread, { team: t, memberId: 'researcher-1' })).messages.map((m) => m.body)).toEqual(['still here']);
    expect((await h.send(peekUnread, { team: t, memberId: 'researcher-1' })).messages).toEqual([]);
    // Put the projection back as the events say (other tests compare it with a rebuild).
    await runner.rebuild();
    await runner.waitUntilCaughtUp();
  });

  it('take-unread is atomic against concurrent sends: every message is returned exactly once', async () => {
    const t = await team();
    const sends = Array.from({ length: 60 }, (_, i) => dm(t, 'researcher-1', 'researcher-2', `m${i}`));
    const taken: string[] = [];
    const takes = (async () => {
      for (let i = 0; i < 15; i++) taken.push(...(await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages.map((m) => m.body!));
    })();
    await Promise.all([...sends, takes]);
    taken.push(...(await h.send(takeUnread, { team: t, memberId: 'researcher-2' })).messages.map((m) => m.body!));
    expect(taken).toHaveLength(60);
    expect(new Set(taken).size).toBe(60);
  });

  it('the mailbox projection rebuilds from position 0 to the same rows', async () => {
    const t = await team();
    await dm(t, 'researcher-1', 'researcher-2', 'before rebuild');
    await h.send(takeUnread, { team: t, memberId: 'researcher-2' });
    await dm(t, 'researcher-2', 'researcher-1', 'unread one');
    const live = await expectRebuiltEqualsLive(h.apps[0].get(MailboxProjection), h.db.pool);
    expect(live.mailbox_messages.length).toBeGreaterThan(3);
  });
});

describe('mailboxes: two instances', () => {
  it('sends and takes spread over two instances still deliver every message exactly once', async () => {
    await h.addInstance(); // the queue group now spreads requests over both
    const t = await team(['a', 'b', 'c']);
    const sends = Array.from({ length: 40 }, (_, i) =>
      h.send(sendMessage, { team: t, type: 'broadcast', from: ['a', 'b', 'c'][i % 3], body: `b${i}`, summary: 'broadcast number for the two instance run' }),
    );
    const taken = new Map<string, string[]>([['a', []], ['b', []], ['c', []], ['lead', []]]);
    const takes = Promise.all(
      [...taken.keys()].map(async (memberId) => {
        for (let i = 0; i < 8; i++) taken.get(memberId)!.push(...(await h.send(takeUnread, { team: t, memberId })).messages.map((m) => m.body!));
      }),
    );
    await Promise.all([...sends, takes]);
    for (const [memberId, bodies] of taken) {
      bodies.push(...(await h.send(takeUnread, { team: t, memberId })).messages.map((m) => m.body!));
      const expected = Array.from({ length: 40 }, (_, i) => i).filter((i) => memberId === 'lead' || ['a', 'b', 'c'][i % 3] !== memberId);
      expect(new Set(bodies).size).toBe(bodies.length);
      expect(bodies.sort()).toEqual(expected.map((i) => `b${i}`).sort());
    }
  });
});

describe('mailboxes: bad input appends nothing', () => {
  let t: string;
  beforeAll(async () => {
    t = await team();
  });
  const big = 'x'.repeat(10_001);
  const cases: Array<[string, Parameters<TeamManagerHarness['sendError']>[0], () => Record<string, unknown>, string, string]> = [
    ['open-inbox: missing memberId', openInbox, () => ({ team: t, role: 'member' }), 'CONTRACTS.VALIDATION_FAILED', 'memberId'],
    ['open-inbox: wrong role type', openInbox, () => ({ team: t, memberId: 'x', role: 7 }), 'CONTRACTS.VALIDATION_FAILED', 'role'],
    ['open-inbox: oversized memberId', openInbox, () => ({ team: t, memberId: 'm'.repeat(201), role: 'member' }), 'CONTRACTS.VALIDATION_FAILED', 'memberId'],
    ['open-inbox: unknown team', openInbox, () => ({ team: 'missing-team', memberId: 'x', role: 'member' }), 'MAILBOX.UNKNOWN_TEAM', 'team'],
    ['send-message: missing type', sendMessage, () => ({ team: t, from: 'lead', to: 'researcher-1', body: 'b', summary }), 'CONTRACTS.VALIDATION_FAILED', 'type'],
    ['send-message: missing to', sendMessage, () => ({ team: t, type: 'message', from: 'lead', body: 'b', summary }), 'CONTRACTS.VALIDATION_FAILED', 'to'],
    ['send-message: missing summary', sendMessage, () => ({ team: t, type: 'message', from: 'lead', to: 'researcher-1', body: 'b' }), 'CONTRACTS.VALIDATION_FAILED', 'summary'],
    ['send-message: wrong body type', sendMessage, () => ({ team: t, type: 'broadcast', from: 'lead', body: 42, summary }), 'CONTRACTS.VALIDATION_FAILED', 'body'],
    ['send-message: wrong approve type', sendMessage, () => ({ team: t, type: 'shutdown_response', from: 'researcher-1', requestId: 'r', approve: 'yes' }), 'CONTRACTS.VALIDATION_FAILED', 'approve'],
    ['send-message: oversized body', sendMessage, () => ({ team: t, type: 'message', from: 'lead', to: 'researcher-1', body: big, summary }), 'CONTRACTS.VALIDATION_FAILED', 'body'],
    ['send-message: oversized reason', sendMessage, () => ({ team: t, type: 'shutdown_response', from: 'researcher-1', requestId: 'r', approve: false, reason: big }), 'CONTRACTS.VALIDATION_FAILED', 'reason'],
    ['send-message: unknown team', sendMessage, () => ({ team: 'missing-team', type: 'message', from: 'lead', to: 'researcher-1', body: 'b', summary }), 'MAILBOX.UNKNOWN_TEAM', 'team'],
    ['send-message: unknown recipient', sendMessage, () => ({ team: t, type: 'message', from: 'lead', to: 'nobody', body: 'b', summary }), 'MAILBOX.UNKNOWN_RECIPIENT', 'to'],
    ['send-message: unknown sender', sendMessage, () => ({ team: t, type: 'broadcast', from: 'nobody', body: 'b', summary }), 'MAILBOX.UNKNOWN_SENDER', 'from'],
    ['send-message: shutdown request to unknown member', sendMessage, () => ({ team: t, type: 'shutdown_request', from: 'lead', to: 'nobody' }), 'MAILBOX.UNKNOWN_RECIPIENT', 'to'],
    ['send-message: unknown request id', sendMessage, () => ({ team: t, type: 'shutdown_response', from: 'researcher-1', requestId: 'r', approve: true }), 'MAILBOX.UNKNOWN_REQUEST', 'requestId'],
    ['take-unread: missing memberId', takeUnread, () => ({ team: t }), 'CONTRACTS.VALIDATION_FAILED', 'memberId'],
    ['take-unread: wrong team type', takeUnread, () => ({ team: 5, memberId: 'lead' }), 'CONTRACTS.VALIDATION_FAILED', 'team'],
    ['take-unread: oversized memberId', takeUnread, () => ({ team: t, memberId: 'm'.repeat(201) }), 'CONTRACTS.VALIDATION_FAILED', 'memberId'],
    ['take-unread: unknown team', takeUnread, () => ({ team: 'missing-team', memberId: 'lead' }), 'MAILBOX.UNKNOWN_TEAM', 'team'],
    ['take-unread: unknown member', takeUnread, () => ({ team: t, memberId: 'nobody' }), 'MAILBOX.UNKNOWN_MEMBER', 'memberId'],
    ['take-unread: throughVersion not a version', takeUnread, () => ({ team: t, memberId: 'lead', throughVersion: '-1' }), 'CONTRACTS.VALIDATION_FAILED', 'throughVersion'],
    ['peek-unread: missing memberId', peekUnread, () => ({ team: t }), 'CONTRACTS.VALIDATION_FAILED', 'memberId'],
    ['peek-unread: unknown team', peekUnread, () => ({ team: 'missing-team', memberId: 'lead' }), 'MAILBOX.UNKNOWN_TEAM', 'team'],
    ['peek-unread: unknown member', peekUnread, () => ({ team: t, memberId: 'nobody' }), 'MAILBOX.UNKNOWN_MEMBER', 'memberId'],
  ];
  it.each(cases)('%s → typed error naming the field, nothing appended', async (_name, definition, body, code, field) => {
    const before = await eventCount();
    const error = await h.sendError(definition, body());
    expect(error).toMatchObject({ code, field });
    expect(await eventCount()).toBe(before);
  });
});
