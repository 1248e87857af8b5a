import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendExperienceLine, ExperienceLog, experienceLine } from './experience-file';
import { LearningsStore } from './learnings-store';

const entry = (i: number) => experienceLine('2026-03-01', { ref: `s${i}`, task: `task ${i}`, outcome: 'completed', summary: `did ${i}` });

describe('experience.md lines', () => {
  it('names the date, outcome, task, summary, what was learned and the ref, on one line', () => {
    expect(experienceLine('2026-03-01', { ref: 'abc', task: 'task  7\nin red', outcome: 'partial', summary: 'half\ndone', learned: 'tests first' })).toBe(
      '- 2026-03-01 [partial] task 7 in red: half done; learned: tests first (ref: abc)',
    );
  });

  it('grows by one line per completion and prunes the oldest beyond the bound', () => {
    let text: string | undefined;
    const pruned: string[] = [];
    for (let i = 0; i < 5; i++) {
      const next = appendExperienceLine(text, 'con', entry(i), `s${i}`, 3);
      text = next.text;
      pruned.push(...next.pruned);
    }
    expect(text).toBe(`# Experience: con\n${[2, 3, 4].map(entry).join('\n')}\n`);
    expect(pruned).toEqual([entry(0), entry(1)]);
  });

  it('records a completion once, however often it is replayed', () => {
    const once = appendExperienceLine(undefined, 'con', entry(1), 's1');
    const again = appendExperienceLine(once.text, 'con', entry(1), 's1');
    expect(again).toEqual({ text: once.text, appended: false, pruned: [] });
  });
});

describe('ExperienceLog on disk', () => {
  let home: string | undefined;
  afterEach(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('writes experience.md under the persona’s folder and archives what pruning drops', async () => {
    home = await mkdtemp(join(tmpdir(), 'hs-experience-'));
    const log = new ExperienceLog(new LearningsStore({ home }), () => new Date('2026-03-01T10:00:00Z'));
    for (let i = 0; i < 3; i++) await log.record('con', { ref: `s${i}`, task: `task ${i}`, outcome: 'completed', summary: `did ${i}` }, 2);
    expect(await readFile(join(home, 'personas', 'con', 'experience.md'), 'utf8')).toBe(`# Experience: con\n${entry(1)}\n${entry(2)}\n`);
    expect(await readFile(join(home, 'personas', 'con', 'archive.md'), 'utf8')).toBe(`# Archive: con\n${entry(0)} — pruned from experience.md on 2026-03-01\n`);
  });
});
