import { curateSkillFile, DEFAULT_SKILL_BUDGET, defaultSkillFile, mergeSkillLines, parseSkillFile, renderSkillFile, skillTokens } from '@headspace/agent-runtime';
import { describe, expect, it } from 'vitest';

const con = parseSkillFile(`# Con — Skill Profile

## Core Competencies
- Ruby on Rails backend development
- Database migrations (Rails, raw SQL)

## Preferences
- Explicit over clever

## Learned Experience
- Has working familiarity with Stimulus controllers (2026-02-10)
`);

describe('merging proposed skill lines', () => {
  it('appends approved lines to Learned Experience and leaves the core as it was', () => {
    const { file, added } = mergeSkillLines(con, ['- Knows Turbo Streams (2026-03-01)'], 'experience');
    expect(added).toEqual(['- Knows Turbo Streams (2026-03-01)']);
    expect(file.sections.find((s) => s.name === 'Learned Experience')?.lines).toEqual(['- Has working familiarity with Stimulus controllers (2026-02-10)', '- Knows Turbo Streams (2026-03-01)']);
    expect(file.sections.slice(0, 2)).toEqual(con.sections.slice(0, 2));
  });

  it('merges the same lines once: a repeated approval adds nothing and does not change the file', () => {
    const once = mergeSkillLines(con, ['Knows Turbo Streams (2026-03-01)', 'Knows Turbo Streams (2026-03-01)'], 'experience');
    expect(once.added).toEqual(['- Knows Turbo Streams (2026-03-01)']);
    const twice = mergeSkillLines(once.file, ['- Knows Turbo Streams (2026-03-01)'], 'experience');
    expect(twice.added).toEqual([]);
    expect(renderSkillFile(twice.file)).toBe(renderSkillFile(once.file));
  });

  it('parks pending lines in a Pending section after Learned Experience, and does not park a line already learned', () => {
    const { file, added } = mergeSkillLines(con, ['- Prefers Solid Queue (2026-03-02)', '- Has working familiarity with Stimulus controllers (2026-02-10)'], 'pending');
    expect(added).toEqual(['- Prefers Solid Queue (2026-03-02)']);
    expect(file.sections.map((s) => s.name)).toEqual(['Core Competencies', 'Preferences', 'Learned Experience', 'Pending']);
    expect(renderSkillFile(file)).toMatch(/## Pending\n- Prefers Solid Queue \(2026-03-02\)\n$/);
  });

  it('does not mutate the file it is given', () => {
    const before = renderSkillFile(con);
    mergeSkillLines(con, ['- Something new'], 'experience');
    curateSkillFile(con, { experienceTokens: 1 });
    expect(renderSkillFile(con)).toBe(before);
  });
});

describe('v3 curation to the token budget', () => {
  it('after many updates keeps Learned Experience within its budget by dropping the oldest lines first, never a core line', () => {
    let file = con;
    const removed: string[] = [];
    for (let i = 0; i < 60; i++) {
      file = mergeSkillLines(file, [`- Lesson ${i}: something learned while working on task number ${i} of the sprint (2026-03-01)`], 'experience').file;
      const curated = curateSkillFile(file, DEFAULT_SKILL_BUDGET);
      file = curated.file;
      removed.push(...curated.removed);
    }
    expect(skillTokens(file).experienceTokens).toBeLessThanOrEqual(DEFAULT_SKILL_BUDGET.experienceTokens);
    const learned = file.sections.find((s) => s.name === 'Learned Experience')?.lines ?? [];
    expect(learned.at(-1)).toContain('Lesson 59:');
    expect(removed[0]).toBe('- Has working familiarity with Stimulus controllers (2026-02-10)');
    expect(removed[1]).toContain('Lesson 0:');
    // Oldest out: what is kept is a contiguous newest run.
    const firstKept = Number(/Lesson (\d+):/.exec(learned[0])?.[1]);
    expect(learned).toHaveLength(60 - firstKept);
    expect(file.sections.slice(0, 2)).toEqual(con.sections.slice(0, 2));
  });

  it('leaves an operator core over its budget alone (only reports it through the token counts)', () => {
    const bigCore = parseSkillFile(`# X\n\n## Core Competencies\n${Array.from({ length: 80 }, (_, i) => `- Competency ${i} described at some length`).join('\n')}\n`);
    const { file, removed } = curateSkillFile(bigCore, DEFAULT_SKILL_BUDGET);
    expect(removed).toEqual([]);
    expect(renderSkillFile(file)).toBe(renderSkillFile(bigCore));
    expect(skillTokens(file).coreTokens).toBeGreaterThan(DEFAULT_SKILL_BUDGET.coreTokens);
  });
});

describe('the shipped default skill.md', () => {
  it('has the seed’s three sections, the persona’s description as a competency, and fits the core budget', () => {
    const text = defaultSkillFile({ persona: 'verner', description: 'QA engineer who tests the whole flow', roleType: 'qa' });
    const file = parseSkillFile(text);
    expect(file.title).toBe('Verner — Skill Profile');
    expect(file.sections.map((s) => s.name)).toEqual(['Core Competencies', 'Preferences', 'Learned Experience']);
    expect(file.sections[0].lines[0]).toBe('- QA engineer who tests the whole flow');
    expect(skillTokens(file).coreTokens).toBeLessThanOrEqual(DEFAULT_SKILL_BUDGET.coreTokens);
    expect(skillTokens(file).experienceTokens).toBeLessThanOrEqual(DEFAULT_SKILL_BUDGET.experienceTokens);
  });
});
