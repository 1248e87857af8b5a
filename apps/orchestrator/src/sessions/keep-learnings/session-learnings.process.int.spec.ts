import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventRegistry, sessionEvents } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config';
import { SessionRecorder } from '../session-recorder';
import { SessionLearningsProcess } from './session-learnings.process';

const schema = 'orchestrator';
let db: TestDatabase;
let store: EventStore;
let home: string;

beforeAll(async () => {
  db = await createTestDatabase('learnings');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', '..', 'migrations')] });
  store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry([...sessionEvents]) });
  home = await mkdtemp(join(tmpdir(), 'hs-learnings-'));
});
afterAll(async () => {
  await db?.drop();
  if (home) await rm(home, { recursive: true, force: true });
});

const now = () => new Date().toISOString();

/** A session of `persona` that ended with `reflection` (as the runner records it), no process running it. */
async function endedSession(persona: string, reflection: { malformed: true; raw: string } | { malformed: false; reflection: Record<string, unknown> }) {
  const sessionId = randomUUID();
  const recorder = await SessionRecorder.load(store, sessionId);
  await recorder.record({ type: 'start-session', sessionId, team: 'red', persona, kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'work', now: now() });
  await recorder.record({ type: 'record-reflection', sessionId, ...reflection, now: now() });
  await recorder.record({ type: 'end-session', sessionId, exitReason: 'completed', summary: 'done', now: now() });
}

const reflectionWith = (learnings: Array<{ category: string; content: string; for_agent?: string }>) => ({
  task_result: { status: 'completed', summary: 'done', files_changed: [] },
  reflection: { what_worked: 'tests first', what_didnt: 'nothing', confidence: 'high' },
  suggested_learnings: learnings,
  follow_up: { needs_human: false },
});

async function processOnce(maxExperience = 100): Promise<void> {
  await new SessionLearningsProcess(store, { HS_AGENT_HOME: home, HS_EXPERIENCE_MAX_ENTRIES: maxExperience } as AppConfig).catchUp();
}

describe('session learnings processor', () => {
  it('appends a reflected session’s learnings to its persona’s file and a teammate’s cross-agent note to theirs, once, however often it starts again', async () => {
    await endedSession('con', {
      malformed: false,
      reflection: reflectionWith([
        { category: 'gotcha', content: 'Slug helpers must strip punctuation.' },
        { category: 'cross-agent', content: 'Con writes tests under test/.', for_agent: 'verner' },
      ]),
    });
    await processOnce();
    const con = await readFile(join(home, 'personas', 'con', 'learnings.md'), 'utf8');
    expect(con).toContain('Slug helpers must strip punctuation.');
    expect(await readFile(join(home, 'personas', 'verner', 'learnings.md'), 'utf8')).toContain('- (from con) Con writes tests under test/.');

    await processOnce();
    expect(await readFile(join(home, 'personas', 'con', 'learnings.md'), 'utf8')).toBe(con);
  });

  it('writes nothing for a malformed reflection or one whose teammate name is invalid', async () => {
    await endedSession('al', { malformed: true, raw: 'no json here' });
    await endedSession('al', { malformed: false, reflection: reflectionWith([{ category: 'cross-agent', content: 'Hi.', for_agent: 'Not A Name!' }]) });
    await processOnce();
    await expect(stat(join(home, 'personas', 'al'))).rejects.toThrow(/ENOENT/);
  });

  it('logs every completed session in experience.md, learnings or not, once each, pruned to HS_EXPERIENCE_MAX_ENTRIES with the oldest out', async () => {
    const withStatus = (status: string, summary: string) => ({ ...reflectionWith([]), task_result: { status, summary, files_changed: [] } });
    await endedSession('bo', { malformed: false, reflection: withStatus('completed', 'first done') });
    await endedSession('bo', { malformed: false, reflection: withStatus('partial', 'second half done') });
    await processOnce(2);
    const path = join(home, 'personas', 'bo', 'experience.md');
    const entries = async () => (await readFile(path, 'utf8')).split('\n').filter((l) => l.startsWith('- '));
    expect(await entries()).toEqual([
      expect.stringMatching(/^- \d{4}-\d{2}-\d{2} \[completed\] task in red: first done; learned: tests first \(ref: [0-9a-f-]+\)$/),
      expect.stringMatching(/\[partial\] task in red: second half done/),
    ]);
    await processOnce(2);
    expect(await entries()).toHaveLength(2);

    await endedSession('bo', { malformed: false, reflection: withStatus('completed', 'third done') });
    await processOnce(2);
    expect((await entries()).map((l) => /\] task in red: (.*?);/.exec(l)?.[1])).toEqual(['second half done', 'third done']);
    expect(await readFile(join(home, 'personas', 'bo', 'archive.md'), 'utf8')).toContain('first done');
  });
});
