import { describe, expect, it } from 'vitest';
import { endReportsFor, isTeammateSession, teammateSessionIdFor, teamOfStream } from './teammate-session';

const usage = { inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
const ended = (exitReason: 'completed' | 'error' | 'cancelled' | 'max_turns', summary = 'Wrote the notes.', error?: string) => ({
  sessionId: 'teammate-x',
  exitReason,
  summary,
  turns: 3,
  usage,
  toolsUsed: [],
  filesModified: [],
  ...(error ? { error } : {}),
  at: '2026-01-01T00:00:00.000Z',
});

describe('teammate sessions', () => {
  it('derive one session id per teammate from the uuid of its session key, and refuse anything else', () => {
    const key = 'agent:default:teammate:0b7e1c2a-3f4d-5e6f-8a9b-0c1d2e3f4a5b';
    expect(teammateSessionIdFor(key)).toBe('teammate-0b7e1c2a-3f4d-5e6f-8a9b-0c1d2e3f4a5b');
    expect(isTeammateSession(teammateSessionIdFor(key))).toBe(true);
    expect(isTeammateSession('run-1.con.a1')).toBe(false);
    expect(() => teammateSessionIdFor('agent:default:main')).toThrow(/not a teammate session key/);
  });

  it('read the team from its stream', () => {
    expect(teamOfStream('team-night-watch')).toBe('night-watch');
    expect(() => teamOfStream('task-1')).toThrow(/not a team stream/);
  });

  it('report completion and idleness when a session ends by itself, a failure with its reason, and nothing when it was stopped', () => {
    expect(endReportsFor(ended('completed'))).toEqual({ announce: { outcome: 'completed', summary: 'Wrote the notes.' }, idle: { summary: 'Wrote the notes.' } });
    expect(endReportsFor(ended('error', 'The session failed', 'model unavailable'))?.announce).toEqual({ outcome: 'failed', summary: 'Session ended (error): model unavailable' });
    expect(endReportsFor(ended('max_turns', 'Stopped after 60 turns'))?.announce.outcome).toBe('failed');
    expect(endReportsFor(ended('completed', 'x'.repeat(3_000)))?.idle.summary).toHaveLength(500);
    expect(endReportsFor(ended('cancelled'))).toBeUndefined();
  });
});
