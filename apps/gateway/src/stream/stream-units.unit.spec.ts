import { teamManagerEvents } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { EventSummariser, summarisedTypes } from './event-summaries';
import { cursorKeyOf, decodeCursor, encodeCursor } from './sse-cursor';
import { actorsOf, teamOf, traceIdOf, type StreamEvent } from './stream-event';
import { eventFilter, parseStreamQuery } from './stream-filter';

describe('SSE cursor', () => {
  it('round-trips the positions of several streams in a compact id', () => {
    const cursor = new Map([
      ['team_manager', 1234],
      ['ops_leon', 7],
    ]);
    const id = encodeCursor(cursor);
    expect(id).toBe('v1:team_manager=ya,ops_leon=7');
    expect(decodeCursor(id)).toEqual(cursor);
  });

  it('leaves streams at 0 out and reads an empty cursor', () => {
    expect(encodeCursor(new Map([['a', 0]]))).toBe('v1:');
    expect(decodeCursor('v1:').size).toBe(0);
  });

  it('refuses ids it did not issue, naming Last-Event-ID', () => {
    for (const bad of ['garbage', 'v1:a', 'v1:a=1=2', 'v1:A=1', 'v1:a=-1', `v1:${'a=1,'.repeat(600)}`]) {
      expect(() => decodeCursor(bad), bad).toThrow(expect.objectContaining({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'Last-Event-ID' }));
    }
  });

  it('keys a stream by its name without namespace and HS_EVT_', () => {
    expect(cursorKeyOf('CI42_HS_EVT_TEAM_MANAGER', 'CI42_HS_EVT_')).toBe('team_manager');
    expect(cursorKeyOf('HS_EVT_OPS_LEON', 'HS_EVT_')).toBe('ops_leon');
  });
});

describe('event fields used by filters', () => {
  it('finds the team in the payload or in the stream id', () => {
    expect(teamOf('task.claimed', 'task-alpha.1', { team: 'alpha' })).toBe('alpha');
    expect(teamOf('team.created', 'team-beta', { name: 'beta' })).toBe('beta');
    expect(teamOf('teammate.idle', 'team-gamma', { name: 'con' })).toBe('gamma');
    expect(teamOf('mailbox.messages-read', 'inbox-delta/con', {})).toBe('delta');
    expect(teamOf('filelock.acquired', 'filelock-eps:src/a.ts', {})).toBe('eps');
    expect(teamOf('persona.released', 'persona-registry', { personaId: 'con' })).toBeUndefined();
  });

  it('collects the personas an event is about, lower-cased', () => {
    expect(actorsOf('mailbox.message-delivered', { from: 'Robbo', recipient: 'con', name: 'x' })).toEqual(['robbo', 'con']);
    expect(actorsOf('teammate.idle', { name: 'May' })).toEqual(['may']);
    expect(actorsOf('persona.registered', { persona: { personaId: 'al' } })).toEqual(['al']);
  });

  it('reads the trace id of a traceparent and ignores anything else', () => {
    expect(traceIdOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(traceIdOf('nonsense')).toBeUndefined();
    expect(traceIdOf(undefined)).toBeUndefined();
  });
});

describe('stream query and filter', () => {
  const event = (type: string, team?: string, actors: string[] = []): StreamEvent => ({ streamKey: 's', seq: 1, eventId: 'e', type, team, actors, frame: '', cloudFrame: () => '' });

  it('matches exact types and category wildcards', () => {
    const f = eventFilter(parseStreamQuery({ types: 'task.*, approval.requested' }));
    expect(f.matches(event('task.claimed'))).toBe(true);
    expect(f.matches(event('approval.requested'))).toBe(true);
    expect(f.matches(event('approval.decided'))).toBe(false);
    expect(f.matches(event('tasklist.tasks-added'))).toBe(false);
  });

  it('combines team and persona filters', () => {
    const f = eventFilter(parseStreamQuery({ team: 'alpha', persona: 'Con' }));
    expect(f.matches(event('task.claimed', 'alpha', ['con']))).toBe(true);
    expect(f.matches(event('task.claimed', 'beta', ['con']))).toBe(false);
    expect(f.matches(event('task.claimed', 'alpha', ['al']))).toBe(false);
  });

  it('follows several teams given as a comma list, and no event without a team', () => {
    const f = eventFilter(parseStreamQuery({ team: 'alpha, beta' }));
    expect(f.matches(event('task.claimed', 'alpha'))).toBe(true);
    expect(f.matches(event('task.claimed', 'beta'))).toBe(true);
    expect(f.matches(event('task.claimed', 'gamma'))).toBe(false);
    expect(f.matches(event('persona.registered'))).toBe(false);
  });

  it('reads the frame format: headspace by default, cloudevents on request, anything else a 400 naming format', () => {
    expect(parseStreamQuery({}).format).toBe('headspace');
    expect(parseStreamQuery({ format: 'cloudevents' }).format).toBe('cloudevents');
    expect(() => parseStreamQuery({ format: 'xml' })).toThrow(expect.objectContaining({ field: 'format' }));
  });

  it('rejects malformed types and since values naming the field', () => {
    expect(() => parseStreamQuery({ types: 'Task Claimed' })).toThrow(expect.objectContaining({ field: expect.stringContaining('types') }));
    expect(() => parseStreamQuery({ since: 'yesterday' })).toThrow(expect.objectContaining({ field: 'since' }));
    expect(parseStreamQuery({ since: '2026-01-01T00:00:00Z' }).since).toBe('2026-01-01T00:00:00Z');
    expect(parseStreamQuery({}).since).toBe('new');
  });
});

describe('event summaries', () => {
  it('has a dedicated summary for every team-manager event type', () => {
    const missing = teamManagerEvents.map((d) => d.type).filter((t) => !summarisedTypes().includes(t));
    expect(missing).toEqual([]);
  });

  it('names tasks by the subject seen in task.created', () => {
    const s = new EventSummariser();
    expect(s.summarise('task.claimed', { team: 'a', taskId: '5', owner: 'con', attempt: 1 })).toBe('Con claimed task #5');
    s.summarise('task.created', { team: 'a', taskId: '5', subject: 'Add auth migration', dependsOn: [] });
    expect(s.summarise('task.claimed', { team: 'a', taskId: '5', owner: 'con', attempt: 2 })).toBe("Con claimed 'Add auth migration' (attempt 2)");
    expect(s.summarise('task.claimed', { team: 'b', taskId: '5', owner: 'con', attempt: 1 })).toBe('Con claimed task #5');
  });

  it('keeps the task cache bounded', () => {
    const s = new EventSummariser();
    for (let i = 0; i < 10_050; i++) s.summarise('task.created', { team: 'a', taskId: `t${i}`, subject: `S${i}` });
    expect(s.tasks.size).toBe(10_000);
    expect(s.summarise('task.completed', { team: 'a', taskId: 't0', owner: 'al' })).toBe('Al completed task #t0');
    expect(s.summarise('task.completed', { team: 'a', taskId: 't10049', owner: 'al' })).toBe("Al completed 'S10049'");
  });

  it('summarises messages, approvals and unknown types legibly', () => {
    const s = new EventSummariser();
    expect(s.summarise('mailbox.message-delivered', { from: 'robbo', recipient: 'con', type: 'message', visibility: 'full', body: 'long body', summary: 'Check the migration order please' })).toBe(
      'Robbo sent Con a message: Check the migration order please',
    );
    expect(s.summarise('approval.requested', { summary: 'Deploy to prod', kind: 'fix-approval', requester: 'leon' })).toBe('Approval requested: Deploy to prod (fix-approval, by Leon)');
    expect(s.summarise('budget.threshold-crossed', { team: 'alpha' })).toBe('Budget threshold crossed (team alpha)');
    expect(s.summarise('weird', null)).toBe('Weird');
  });

  it('cuts long texts to one short line', () => {
    const s = new EventSummariser();
    const text = s.summarise('task.completed', { team: 'a', taskId: '1', owner: 'con', result: `first line ${'x'.repeat(300)}\nsecond` });
    expect(text.length).toBeLessThan(140);
    expect(text).not.toContain('\n');
    expect(text.endsWith('…')).toBe(true);
  });
});
