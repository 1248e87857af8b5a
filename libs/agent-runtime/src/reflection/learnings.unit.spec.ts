import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadspaceError, reflectionSchema, type Reflection } from '@headspace/contracts';
import { LearningsStore } from './learnings-store';
import { parseLearnings } from './learnings-file';
import { SkillFileStore } from './skill-file';
import { validReflection } from './reflection.fixture';

let home: string;
let today = new Date('2026-03-01T12:00:00Z');
const clock = () => today;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'hs-learn-'));
  today = new Date('2026-03-01T12:00:00Z');
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const reflectionWith = (learnings: Reflection['suggested_learnings'], extra: Partial<Reflection> = {}): Reflection =>
  reflectionSchema.parse({ ...validReflection, suggested_learnings: learnings, ...extra });

describe('learnings routing', () => {
  it('routes a valid reflection to category sections and cross-agent notes to the target persona', async () => {
    const store = new LearningsStore({ home, now: clock });
    const result = await store.applyReflection('con', reflectionSchema.parse(validReflection));
    expect(result.routed.map((r) => [r.persona, r.section])).toEqual([
      ['con', 'Gotchas'],
      ['al', 'Cross-Agent Notes'],
    ]);
    const con = await readFile(join(home, 'personas', 'con', 'learnings.md'), 'utf8');
    expect(con).toBe(
      '# Learnings: con\n\n## Codebase Patterns\n\n## Gotchas\n- The task projection lags: decide claims against the stream (added: 2026-03-01)\n\n## Preferences\n\n## Cross-Agent Notes\n',
    );
    const al = await readFile(join(home, 'personas', 'al', 'learnings.md'), 'utf8');
    expect(al).toContain('## Cross-Agent Notes\n- (from con) Use TrustLevel enum from src/core/types.ts (added: 2026-03-01)\n');
  });

  it('parses the seed example file format', () => {
    const f = parseLearnings(
      '# Learnings: architect\n\n## Codebase Patterns\n- API v2 uses joi for validation, not zod (added: 2026-02-13)\n\n## Cross-Agent Notes\n- (from architect) Use TrustLevel enum from src/core/types.ts (added: 2026-02-13)\n',
      'architect',
    );
    expect(f.entries).toEqual([
      { section: 'Codebase Patterns', tier: 'task', content: 'API v2 uses joi for validation, not zod', added: '2026-02-13', refs: 0, sprints: 0, from: undefined, last: undefined },
      { section: 'Cross-Agent Notes', tier: 'task', content: 'Use TrustLevel enum from src/core/types.ts', added: '2026-02-13', refs: 0, sprints: 0, from: 'architect', last: undefined },
    ]);
  });

  it('turns a repeated learning into a reference and promotes it to core at five references', async () => {
    const store = new LearningsStore({ home, now: clock });
    const once = reflectionWith([{ category: 'codebase-pattern', content: 'Projections are rebuilt from position 0' }]);
    for (let i = 0; i < 6; i++) await store.applyReflection('con', once);
    const f = await store.readLearnings('con');
    expect(f.entries).toHaveLength(1);
    expect(f.entries[0]).toMatchObject({ tier: 'core', refs: 5 });
    expect(await readFile(join(home, 'personas', 'con', 'learnings.md'), 'utf8')).toContain('- [core] Projections are rebuilt from position 0 (added: 2026-03-01, refs: 5, last: 2026-03-01)');
  });

  it('rejects a persona name that could escape the home directory', async () => {
    const store = new LearningsStore({ home, now: clock });
    const bad = reflectionWith([{ category: 'cross-agent', content: 'x', for_agent: '../../etc' }]);
    await expect(store.applyReflection('con', bad)).rejects.toMatchObject({ code: 'LEARNINGS.PERSONA_INVALID', field: 'suggested_learnings.for_agent' });
  });
});

describe('60-line cap and consolidation', () => {
  it('keeps at most 30 task-relevant lines and archives the evicted ones', async () => {
    const store = new LearningsStore({ home, now: clock });
    const many = Array.from({ length: 35 }, (_, i) => ({ category: 'gotcha' as const, content: `Distinct gotcha number ${i} about module${i}` }));
    const result = await store.applyReflection('con', reflectionWith(many));
    expect(result.reports[0]).toMatchObject({ taskLines: 30, coreLines: 0 });
    expect(result.reports[0].archived).toHaveLength(5);
    const text = await readFile(join(home, 'personas', 'con', 'learnings.md'), 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(30);
    const archive = await store.readArchive('con');
    expect(archive.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(5);
    expect(archive).toContain('evicted: over the 60-line cap');
  });

  it('caps core at 30 by demoting the least referenced, never exceeding 60 lines', async () => {
    const dir = join(home, 'personas', 'may');
    await mkdir(dir, { recursive: true });
    const core = Array.from({ length: 32 }, (_, i) => `- [core] Core rule ${i} for table${i} (added: 2026-02-28, refs: ${10 + i})`);
    const task = Array.from({ length: 29 }, (_, i) => `- Task hint ${i} for query${i} (added: 2026-02-28)`);
    await writeFile(join(dir, 'learnings.md'), `# Learnings: may\n\n## Codebase Patterns\n${core.join('\n')}\n${task.join('\n')}\n`);
    const store = new LearningsStore({ home, now: clock });
    const report = await store.consolidate('may');
    expect(report).toMatchObject({ coreLines: 30, taskLines: 30 });
    expect(report.demotedToTask).toEqual(['Core rule 0 for table0', 'Core rule 1 for table1']);
    expect(report.archived).toHaveLength(1);
    expect((await store.readLearnings('may')).entries).toHaveLength(60);
  });

  it('archives entries older than 21 days without recent references and flags old cross-agent notes', async () => {
    const store = new LearningsStore({ home, now: clock });
    await store.applyReflection('con', reflectionWith([{ category: 'gotcha', content: 'Old gotcha about the webpack cache' }, { category: 'preference', content: 'Keep commits small and focused on one change' }]));
    await store.applyReflection('al', reflectionWith([{ category: 'cross-agent', content: 'Buttons need aria labels', for_agent: 'con' }]));
    today = new Date('2026-03-10T12:00:00Z');
    await store.recordReference('con', 'Keep commits small and focused on one change');
    today = new Date('2026-03-25T12:00:00Z');
    const report = await store.consolidate('con');
    expect(report.archived.map((a) => a.content)).toEqual(['Old gotcha about the webpack cache']);
    expect(report.crossAgentToValidate).toEqual(['Buttons need aria labels']);
    expect(await store.readArchive('con')).toContain('Old gotcha about the webpack cache — stale: older than 21 days');

    await store.resolveCrossAgentNote('con', 'Buttons need aria labels', { action: 'discard', rationale: 'not my domain' });
    expect((await store.readLearnings('con')).entries.map((e) => e.content)).toEqual(['Keep commits small and focused on one change']);
    expect(await store.readArchive('con')).toContain('Buttons need aria labels — discarded: not my domain');
  });

  it('keeps hand-written lines and proven core lines when archiving stale entries', async () => {
    const dir = join(home, 'personas', 'con');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'learnings.md'), '# Learnings: con\n\n## Preferences\n- Operator says: squash merges only\n- [core] Old but proven rule (added: 2026-01-01, refs: 9, last: 2026-01-02)\n- Old unproven hint (added: 2026-01-01)\n');
    const store = new LearningsStore({ home, now: clock });
    const report = await store.consolidate('con');
    expect(report.archived.map((a) => a.content)).toEqual(['Old unproven hint']);
    expect((await store.readLearnings('con')).entries.map((e) => [e.content, e.added])).toEqual([
      ['Old but proven rule', '2026-01-01'],
      ['Operator says: squash merges only', '2026-03-01'],
    ]);
  });

  it('merges entries that say the same thing and proposes sprint-proven ones as rules', async () => {
    const dir = join(home, 'personas', 'con');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'learnings.md'),
      '# Learnings: con\n\n## Gotchas\n- Always run migrations before seeding data (added: 2026-02-27, refs: 2, sprints: 3)\n- always run migrations before seeding the data (added: 2026-02-28, refs: 1)\n',
    );
    const report = await new LearningsStore({ home, now: clock }).consolidate('con');
    expect(report.merged).toHaveLength(1);
    expect(report.ruleCandidates).toEqual(['Always run migrations before seeding data']);
    const [entry] = (await new LearningsStore({ home }).readLearnings('con')).entries;
    expect(entry).toMatchObject({ refs: 3, added: '2026-02-27' });
  });

  it('injects core lines and the task-relevant lines that match the task', async () => {
    const store = new LearningsStore({ home, now: clock });
    await store.applyReflection('con', reflectionWith([
      { category: 'gotcha', content: 'Lease renewal needs the expected stream version' },
      { category: 'preference', content: 'Prefer tabs in Makefiles' },
    ]));
    const text = await store.renderForPrompt('con', 'Implement lease renewal for claims');
    expect(text).toContain('Lease renewal needs the expected stream version');
    expect(text).not.toContain('Makefiles');
  });
});

describe('skill files', () => {
  const SKILL = '# Con — Skill Profile\n\n## Core Competencies\n- Event sourcing\n\n## Preferences\n- Explicit over clever\n\n## Learned Experience\n- Has used NATS JetStream pull consumers (2026-02-01)\n';

  it('returns proposals from the reflection without writing, then applies approved and pending ones', async () => {
    const store = new LearningsStore({ home, now: clock });
    const skills = new SkillFileStore(store, clock);
    await skills.write('con', SKILL);
    const proposals = skills.proposeFromReflection('con', reflectionWith([], { skill_updates: ['Has working familiarity with Stimulus controllers from auth UI task'] }));
    expect(proposals).toHaveLength(1);
    expect(proposals[0].line).toBe('- Has working familiarity with Stimulus controllers from auth UI task (2026-03-01)');
    expect(await skills.readText('con')).toBe(SKILL);

    await skills.applyProposal(proposals[0], 'pending');
    expect(await skills.readText('con')).toContain('## Pending\n- Has working familiarity with Stimulus');
    await skills.resolvePending('con', proposals[0].line, 'approve');
    const file = await skills.read('con');
    expect(file?.sections.map((s) => s.name)).toEqual(['Core Competencies', 'Preferences', 'Learned Experience']);
    expect(file?.sections[2].lines).toEqual(['- Has used NATS JetStream pull consumers (2026-02-01)', proposals[0].line]);
    await expect(skills.resolvePending('con', 'nope', 'reject')).rejects.toBeInstanceOf(HeadspaceError);
  });

  it('curation keeps the learned experience under its token budget and moves the oldest lines to experience.md', async () => {
    const store = new LearningsStore({ home, now: clock });
    const skills = new SkillFileStore(store, clock);
    const lines = Array.from({ length: 30 }, (_, i) => `- Worked on feature number ${i} of the billing service (2026-02-${String((i % 28) + 1).padStart(2, '0')})`);
    await skills.write('con', `# Con — Skill Profile\n\n## Core Competencies\n- Event sourcing\n\n## Learned Experience\n${lines.join('\n')}\n`);
    const report = await skills.curate('con', { coreTokens: 200, experienceTokens: 300 });
    expect(report.experienceTokens).toBeLessThanOrEqual(300);
    expect(report.coreOverBudget).toBe(false);
    expect(report.removed[0]).toBe(lines[0]);
    const kept = (await skills.read('con'))?.sections.find((s) => s.name === 'Learned Experience')?.lines ?? [];
    expect(kept[kept.length - 1]).toBe(lines[29]);
    expect(kept.length + report.removed.length).toBe(30);
    const experience = await readFile(join(home, 'personas', 'con', 'experience.md'), 'utf8');
    for (const l of report.removed) expect(experience).toContain(l);
    // curating again changes nothing
    expect((await skills.curate('con')).removed).toEqual([]);
  });

  it('reports an operator core over budget without rewriting it', async () => {
    const skills = new SkillFileStore(new LearningsStore({ home, now: clock }), clock);
    const core = Array.from({ length: 40 }, (_, i) => `- Competency ${i} in a long descriptive phrase`).join('\n');
    await skills.write('con', `# Con — Skill Profile\n\n## Core Competencies\n${core}\n`);
    const report = await skills.curate('con');
    expect(report.coreOverBudget).toBe(true);
    expect(await skills.readText('con')).toContain('Competency 39');
  });

  it('appends to the experience log and prunes it to a budget, archiving the oldest', async () => {
    const store = new LearningsStore({ home, now: clock });
    const skills = new SkillFileStore(store, clock);
    for (let i = 0; i < 20; i++) await skills.appendExperience('con', { task: `task-${i}`, status: 'completed', summary: `Did thing ${i} well enough` });
    const { archived } = await skills.curateExperienceLog('con', 100);
    expect(archived).toBeGreaterThan(0);
    const log = await readFile(join(home, 'personas', 'con', 'experience.md'), 'utf8');
    expect(log).toContain('task-19');
    expect(log).not.toContain('task-0:');
    expect(log).toContain(`[summary] ${archived} older entries archived`);
    expect(await store.readArchive('con')).toContain('task-0: Did thing 0');
  });
});
