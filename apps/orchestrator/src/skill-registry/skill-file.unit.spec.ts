import { describe, expect, it } from 'vitest';
import { parseSkillFile } from './skill-file';

const file = '/p/.claude/skills/release-notes/SKILL.md';
const skill = (frontmatter: string, body = 'Write the notes.') => `---\n${frontmatter}\n---\n${body}\n`;

describe('SKILL.md parsing', () => {
  it('reads name, description, allowed-tools, triggers, hooks and the body', () => {
    const text = skill(
      [
        'name: release-notes',
        'description: Drafts release notes from the changelog',
        'allowed-tools: Read, Grep Write',
        'triggers: [release notes, changelog]',
        'license: MIT',
        'hooks:',
        '  PostToolUse:',
        '    - matcher: Write',
        '      hooks:',
        '        - type: command',
        '          command: echo hi',
      ].join('\n'),
      '# Release notes\nGroup by type.',
    );
    const parsed = parseSkillFile(text, file, 'release-notes');
    expect(parsed).toEqual({
      ok: true,
      skill: {
        name: 'release-notes',
        description: 'Drafts release notes from the changelog',
        allowedTools: ['Read', 'Grep', 'Write'],
        triggers: ['release notes', 'changelog'],
        hooks: { PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'echo hi' }] }] },
        body: '# Release notes\nGroup by type.',
      },
    });
  });

  it('takes allowed-tools as a YAML list too', () => {
    const parsed = parseSkillFile(skill('name: a\ndescription: d\nallowed-tools: [Read, Bash(git diff:*)]'), file, 'a');
    expect(parsed.ok && parsed.skill.allowedTools).toEqual(['Read', 'Bash(git diff:*)']);
  });

  it.each([
    ['description: no name', 'name', 'is required'],
    ['name: release-notes', 'description', 'is required'],
    ['name: Release Notes\ndescription: d', 'name', 'lowercase'],
    ['name: other-name\ndescription: d', 'name', 'directory'],
    ['name: release-notes\ndescription: d\ntriggers: release', 'triggers', ''],
    ['name: release-notes\ndescription: d\nhooks:\n  NoSuchEvent: []', 'hooks', ''],
  ])('reports %j naming the field %s and the file', (frontmatter, field, message) => {
    const parsed = parseSkillFile(skill(frontmatter), file, 'release-notes');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issue.file).toBe(file);
    expect(parsed.issue.field).toBe(field);
    expect(parsed.issue.message).toContain(message);
  });

  it('reports a file without frontmatter, or with YAML that does not parse, on (frontmatter)', () => {
    for (const text of ['just text', '---\nname: [unclosed\n---\nbody']) {
      const parsed = parseSkillFile(text, file, 'release-notes');
      expect(parsed).toMatchObject({ ok: false, issue: { file, field: '(frontmatter)' } });
    }
  });
});
