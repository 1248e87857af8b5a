import { describe, expect, it } from 'vitest';
import { HeadspaceError } from '@headspace/contracts';
import { parseManifestYaml, resolveMembers, stringifyManifest } from './manifest-yaml';
import { SEED_MANIFEST } from './seed-manifest.fixture';

const minimal = `team: red
description: Red team
members:
  - name: dev
    role: Builds things
    tools: [Read]
    owns: ["src/**"]
`;

function refusal(text: string): { field?: string; message: string } {
  try {
    parseManifestYaml(text);
  } catch (error) {
    expect(error).toBeInstanceOf(HeadspaceError);
    expect((error as HeadspaceError).code).toBe('MANIFEST.INVALID');
    return { field: (error as HeadspaceError).field, message: (error as HeadspaceError).message };
  }
  throw new Error('expected the manifest to be refused');
}

const withMember = (lines: string) => `team: red\ndescription: Red team\nmembers:\n  - name: dev\n    role: Builds things\n${lines}`;

describe('team.yaml parsing', () => {
  it('reads the seed example: required fields, defaults and per-member overrides', () => {
    const manifest = parseManifestYaml(SEED_MANIFEST);
    expect(manifest.team).toBe('project-slug');
    expect(manifest.defaults).toEqual({ model: 'sonnet', budget: 0.5, 'permission-mode': 'dontAsk' });
    expect(manifest.members[0]).toEqual({
      name: 'architect',
      role: 'System design, API contracts, patterns',
      model: 'opus',
      budget: 1,
      tools: ['Read', 'Grep', 'Glob', 'Bash(git:*)'],
      owns: ['src/core/**', 'docs/**', '*.md'],
    });
    expect(resolveMembers(manifest)).toEqual([
      expect.objectContaining({ name: 'architect', model: 'opus', budget: 1, permissionMode: 'dontAsk' }),
      expect.objectContaining({ name: 'backend', model: 'sonnet', budget: 0.5, permissionMode: 'dontAsk', tools: expect.arrayContaining(['Bash(uv run pytest:*)']) }),
    ]);
  });

  it('optional fields default to model sonnet, budget 0.50 and permission-mode dontAsk; a member override wins over defaults', () => {
    const manifest = parseManifestYaml(minimal);
    expect(manifest.defaults).toEqual({ model: 'sonnet', budget: 0.5, 'permission-mode': 'dontAsk' });
    expect(resolveMembers(manifest)[0]).toEqual({ name: 'dev', role: 'Builds things', model: 'sonnet', budget: 0.5, permissionMode: 'dontAsk', tools: ['Read'], owns: ['src/**'] });
    const custom = parseManifestYaml(`${minimal.replace('members:', 'defaults:\n  model: haiku\nmembers:')}    permission-mode: plan\n`);
    expect(resolveMembers(custom)[0]).toMatchObject({ model: 'haiku', budget: 0.5, permissionMode: 'plan' });
  });

  it('a member’s runtime wins over defaults.runtime; with neither the member names none (the persona’s default decides)', () => {
    expect(resolveMembers(parseManifestYaml(minimal))[0]).not.toHaveProperty('runtime');
    const team = parseManifestYaml(minimal.replace('members:', 'defaults:\n  runtime: claude-code\nmembers:'));
    expect(resolveMembers(team)[0]).toMatchObject({ runtime: 'claude-code' });
    const member = parseManifestYaml(`${minimal.replace('members:', 'defaults:\n  runtime: claude-code\nmembers:')}    runtime: built-in\n`);
    expect(resolveMembers(member)[0]).toMatchObject({ runtime: 'built-in' });
    expect(() => parseManifestYaml(`${minimal}    runtime: claude\n`)).toThrow(expect.objectContaining({ field: 'members.0.runtime' }));
  });

  it('export then import gives the same manifest (round trip), and the export keeps the seed layout', () => {
    for (const text of [SEED_MANIFEST, minimal]) {
      const manifest = parseManifestYaml(text);
      const exported = stringifyManifest(manifest);
      expect(parseManifestYaml(exported)).toEqual(manifest);
      expect(stringifyManifest(parseManifestYaml(exported))).toBe(exported);
    }
    expect(stringifyManifest(parseManifestYaml(SEED_MANIFEST))).toContain('tools: [ Read, Grep, Glob, Bash(git:*) ]');
  });

  it.each([
    ['missing team', minimal.replace('team: red\n', ''), 'team'],
    ['team not a slug', minimal.replace('team: red', 'team: Red Team'), 'team'],
    ['missing description', minimal.replace('description: Red team\n', ''), 'description'],
    ['multi-line description', minimal.replace('description: Red team', 'description: "two\\nlines"'), 'description'],
    ['oversized description', minimal.replace('Red team', 'x'.repeat(501)), 'description'],
    ['missing members', 'team: red\ndescription: Red team\n', 'members'],
    ['empty members', 'team: red\ndescription: Red team\nmembers: []\n', 'members'],
    ['members not a list', 'team: red\ndescription: Red team\nmembers: dev\n', 'members'],
    ['member without name', minimal.replace('  - name: dev\n    role', '  - role'), 'members.0.name'],
    ['member name not lowercase', minimal.replace('name: dev', 'name: Dev'), 'members.0.name'],
    ['member without role', minimal.replace('    role: Builds things\n', ''), 'members.0.role'],
    ['member without tools', minimal.replace('    tools: [Read]\n', ''), 'members.0.tools'],
    ['tools not a list', minimal.replace('tools: [Read]', 'tools: Read'), 'members.0.tools'],
    ['malformed tool pattern', minimal.replace('tools: [Read]', 'tools: [Read, "Bash(git:*"]'), 'members.0.tools.1'],
    ['lowercase tool', minimal.replace('tools: [Read]', 'tools: [read]'), 'members.0.tools.0'],
    ['duplicate tool', minimal.replace('tools: [Read]', 'tools: [Read, Read]'), 'members.0.tools.1'],
    ['member without owns', minimal.replace('    owns: ["src/**"]\n', ''), 'members.0.owns'],
    ['absolute owns glob', minimal.replace('"src/**"', '"/etc/**"'), 'members.0.owns.0'],
    ['owns glob leaving the workspace', minimal.replace('"src/**"', '"../other/**"'), 'members.0.owns.0'],
    ['unknown permission mode', withMember('    permission-mode: yolo\n    tools: []\n    owns: []\n'), 'members.0.permission-mode'],
    ['negative budget', withMember('    budget: -1\n    tools: []\n    owns: []\n'), 'members.0.budget'],
    ['budget as text', withMember('    budget: lots\n    tools: []\n    owns: []\n'), 'members.0.budget'],
    ['bad model', withMember('    model: "Opus 4!"\n    tools: []\n    owns: []\n'), 'members.0.model'],
    ['bad default model', minimal.replace('members:', 'defaults:\n  model: ""\nmembers:'), 'defaults.model'],
    ['bad default budget', minimal.replace('members:', 'defaults:\n  budget: 0\nmembers:'), 'defaults.budget'],
    ['bad default permission mode', minimal.replace('members:', 'defaults:\n  permission-mode: never\nmembers:'), 'defaults.permission-mode'],
    ['unknown top-level field', `${minimal}colour: red\n`, 'colour'],
    ['unknown member field (typo)', withMember('    permision-mode: plan\n    tools: []\n    owns: []\n'), 'members.0.permision-mode'],
    ['unknown defaults field', minimal.replace('members:', 'defaults:\n  budgets: 1\nmembers:'), 'defaults.budgets'],
    ['duplicate member names', `${minimal}  - name: dev\n    role: Again\n    tools: []\n    owns: []\n`, 'members.1.name'],
    ['not YAML', 'team: [unclosed\n', 'yaml'],
    ['duplicate keys', 'team: red\nteam: blue\ndescription: x\nmembers: []\n', 'yaml'],
    ['a list instead of a mapping', '- team: red\n', 'yaml'],
    ['several documents', `${minimal}---\n${minimal}`, 'yaml'],
  ])('refuses a manifest with %s, naming the field', (_what, text, field) => {
    expect(refusal(text).field).toBe(field);
  });

  it('names the third member\'s first tool as members.2.tools.0', () => {
    const three = `${minimal}  - name: qa\n    role: Tests\n    tools: [Read]\n    owns: []\n  - name: ops\n    role: Runs\n    tools: ["rm -rf"]\n    owns: []\n`;
    expect(refusal(three)).toMatchObject({ field: 'members.2.tools.0', message: expect.stringContaining('members.2.tools.0') });
  });
});
