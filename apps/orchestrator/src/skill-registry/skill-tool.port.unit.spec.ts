import { HookEngine } from '@headspace/agent-runtime';
import { describe, expect, it } from 'vitest';
import type { ToolPort } from '../sessions/run-session/session-ports';
import type { Skill } from './skill-discovery';
import { loadedSkillOf, skillListing, SKILL_TOOL, SkillToolPort } from './skill-tool.port';

const skill = (key: string, extra: Partial<Skill> = {}): Skill => ({
  key,
  name: key,
  description: `Does ${key} things`,
  allowedTools: [],
  triggers: [],
  body: `BODY OF ${key}`,
  origin: 'project',
  file: `/nowhere/${key}/SKILL.md`,
  dir: `/nowhere/${key}`,
  ...extra,
});
const hooks = { PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command' as const, command: 'true' }] }] };

function port(skills: Skill[]) {
  const innerCalls: string[] = [];
  const innerDefs = [{ name: 'Read' } as never];
  const inner: ToolPort = {
    definitions: () => innerDefs,
    run: async (call) => {
      innerCalls.push(call.name);
      return { content: 'inner', isError: false, filesModified: [], hooks: [] };
    },
    onStop: async () => undefined,
  };
  const engine = new HookEngine({});
  const tools = new SkillToolPort(inner, skills, engine, { sessionId: 's1', cwd: '/nowhere' });
  const skillHooks = () => engine.registrations().filter((r) => r.scope === 'skill');
  return { tools, innerCalls, skillHooks };
}

describe('the Skill tool (progressive disclosure)', () => {
  it('is offered first, before the inner tools, in the same array while those do not change', () => {
    const { tools } = port([skill('release-notes')]);
    const defs = tools.definitions();
    expect(defs.map((d) => (d as { name: string }).name)).toEqual([SKILL_TOOL, 'Read']);
    expect(tools.definitions()).toBe(defs);
  });

  it('lists names and descriptions only, never a body', () => {
    const listing = skillListing([skill('release-notes', { triggers: ['changelog', 'release'] }), skill('kit:lint', { plugin: 'kit', origin: 'plugin' })]);
    expect(listing).toContain('- release-notes: Does release-notes things (triggers: changelog, release)');
    expect(listing).toContain('- kit:lint: Does kit:lint things');
    expect(listing).not.toContain('BODY OF');
    expect(skillListing([])).toBe('');
  });

  it('loads the body as the result, names the skill so a resumed session finds it, and activates its hooks only then', async () => {
    const { tools, skillHooks } = port([skill('release-notes', { hooks })]);
    expect(skillHooks()).toEqual([]);
    const out = await tools.run({ id: 't1', name: SKILL_TOOL, input: { skill: 'release-notes', args: 'v2' } });
    expect(out.isError).toBe(false);
    expect(out.content).toContain('BODY OF release-notes');
    expect(out.content).toContain('Arguments: v2');
    expect(loadedSkillOf(out.content)).toBe('release-notes');
    expect(skillHooks().map((r) => [r.event, r.matcher, r.source])).toEqual([['PostToolUse', 'Write', '/nowhere/release-notes/SKILL.md']]);
    // Loading it again does not add its hooks twice.
    await tools.run({ id: 't2', name: SKILL_TOOL, input: { skill: '/release-notes' } });
    expect(skillHooks().length).toBe(1);
  });

  it('answers an unknown skill with an error naming the available ones, and adds no hooks', async () => {
    const { tools, skillHooks } = port([skill('release-notes', { hooks })]);
    const out = await tools.run({ id: 't1', name: SKILL_TOOL, input: { skill: 'nope' } });
    expect(out.isError).toBe(true);
    expect(out.content).toContain('No skill "nope". Available: release-notes');
    expect(skillHooks()).toEqual([]);
  });

  it('passes every other tool to the inner port', async () => {
    const { tools, innerCalls } = port([skill('a')]);
    expect((await tools.run({ id: 't1', name: 'Read', input: {} })).content).toBe('inner');
    expect(innerCalls).toEqual(['Read']);
  });
});

describe('the Skill tool without skills to offer (a slash command under an allow-list without Skill)', () => {
  it('offers no tool and leaves a Skill call to the inner port, while a preloaded skill’s hooks are active', async () => {
    const { tools, innerCalls, skillHooks } = port([]);
    tools.activate(skill('release-notes', { hooks }));
    expect(tools.definitions().map((d) => (d as { name: string }).name)).toEqual(['Read']);
    await tools.run({ id: 't1', name: SKILL_TOOL, input: { skill: 'release-notes' } });
    expect(innerCalls).toEqual([SKILL_TOOL]);
    expect(skillHooks().length).toBe(1);
  });
});
