import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LearningsStore } from './learnings-store';
import { ProjectLearningsStore, redistributeCrossAgentNotes, seedFromRelatedMembers, TeamMemoryStore } from './team-memory';

let home: string;
const clock = () => new Date('2026-02-13T09:00:00Z');
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'hs-team-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('shared team memory', () => {
  it('records decisions under their section in the seed format and reads them back', async () => {
    const team = new TeamMemoryStore({ home, now: clock });
    await team.seed('raglue');
    await team.recordDecision('raglue', { section: 'Architecture', text: 'REST over GraphQL for all public APIs', by: 'architect' });
    await team.recordDecision('raglue', { section: 'Conventions', text: 'All dates stored as ISO 8601 UTC', by: 'backend' });
    await team.recordDecision('raglue', { section: 'Architecture', text: 'One stream per task', by: 'architect' });
    expect(await readFile(join(home, 'teams', 'raglue', 'decisions.md'), 'utf8')).toBe(
      '# Team Decisions\n\n## Architecture\n- REST over GraphQL for all public APIs (decided: 2026-02-13, by: architect)\n- One stream per task (decided: 2026-02-13, by: architect)\n\n## Conventions\n- All dates stored as ISO 8601 UTC (decided: 2026-02-13, by: backend)\n',
    );
    expect((await team.readDecisions('raglue')).map((d) => [d.section, d.by])).toEqual([
      ['Architecture', 'architect'],
      ['Architecture', 'architect'],
      ['Conventions', 'backend'],
    ]);
  });

  it('appends retrospective summaries', async () => {
    const team = new TeamMemoryStore({ home, now: clock });
    await team.appendRetro('raglue', { title: 'Sprint 1', summary: 'Claims shipped; leases slipped.' });
    await team.appendRetro('raglue', { title: 'Sprint 2', summary: 'Leases shipped.' });
    const history = await team.readRetroHistory('raglue');
    expect(history.indexOf('## 2026-02-13 — Sprint 1')).toBeLessThan(history.indexOf('## 2026-02-13 — Sprint 2'));
  });
});

describe('learnings transfer', () => {
  it('seeds a new member from the core lines of related members and hands a leaving member’s cross-agent notes on', async () => {
    const store = new LearningsStore({ home, now: clock });
    await store.addLearnings('backend', [
      { persona: 'backend', section: 'Gotchas', content: 'Bootstrap TrustService before first call' },
      { persona: 'backend', section: 'Preferences', content: 'Prefer explicit error types' },
      { persona: 'backend', section: 'Cross-Agent Notes', content: 'Use TrustLevel enum', from: 'architect' },
    ]);
    for (let i = 0; i < 5; i++) await store.recordReference('backend', 'Bootstrap TrustService before first call');
    const seeded = await seedFromRelatedMembers(store, 'backend-two', ['backend']);
    expect(seeded.map((s) => s.content)).toEqual(['Bootstrap TrustService before first call']);

    expect(await redistributeCrossAgentNotes(store, 'backend', 'backend-two')).toBe(1);
    const two = await store.readLearnings('backend-two');
    expect(two.entries.find((e) => e.section === 'Cross-Agent Notes')).toMatchObject({ content: 'Use TrustLevel enum', from: 'architect' });
    expect((await store.readLearnings('backend')).entries.some((e) => e.section === 'Cross-Agent Notes')).toBe(false);
  });
});

describe('team memory in a project (memory/ of the checkout, seed 001 layout)', () => {
  it('keeps decisions and one retro per run at the root of the project’s memory folder', async () => {
    const memoryDir = join(home, 'project', 'memory');
    const team = new TeamMemoryStore({ memoryDir, now: clock });
    await team.seed('raglue');
    await team.recordDecision('raglue', { section: 'Reviews', text: 'Run r1: done', by: 'robbo' });
    expect(await readFile(join(memoryDir, 'decisions.md'), 'utf8')).toContain('## Reviews\n- Run r1: done (decided: 2026-02-13, by: robbo)');
    const path = await team.writeRetro('raglue', '7-run', '# Retro');
    expect(path).toBe(join(memoryDir, 'retros', '7-run.md'));
    expect(await readFile(path, 'utf8')).toBe('# Retro\n');
    await expect(team.writeRetro('raglue', '../escape', '# no')).rejects.toMatchObject({ field: 'id' });
  });

  it('writes learnings to agents/<name>/learnings.md of the project, routed and formatted as in the agent home', async () => {
    const memoryDir = join(home, 'project', 'memory');
    const store = new ProjectLearningsStore(memoryDir, { now: clock });
    await store.applyReflection('con', {
      task_result: { status: 'completed', summary: 'done', files_changed: [] },
      reflection: { what_worked: '', what_didnt: '', confidence: 'high' },
      suggested_learnings: [
        { category: 'gotcha', content: 'Validate n before slice()' },
        { category: 'cross-agent', content: 'QA tests live in test/', for_agent: 'verner' },
      ],
      follow_up: { needs_human: false },
    });
    expect(await readFile(join(memoryDir, 'agents', 'con', 'learnings.md'), 'utf8')).toContain('## Gotchas\n- Validate n before slice() (added: 2026-02-13)');
    expect(await readFile(join(memoryDir, 'agents', 'verner', 'learnings.md'), 'utf8')).toContain('- (from con) QA tests live in test/ (added: 2026-02-13)');
  });
});
