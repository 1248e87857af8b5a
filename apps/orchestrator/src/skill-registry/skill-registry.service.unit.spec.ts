import { HookEngine } from '@headspace/agent-runtime';
import type { EventData, sessionStarted } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionPorts } from '../sessions/run-session/agent-session.runner';
import { SkillRegistry } from './skill-registry.service';
import { SKILL_TOOL } from './skill-tool.port';

const SKILL = `---
name: release-notes
description: Drafts release notes.
hooks:
  PostToolUse:
    - matcher: Write
      hooks:
        - type: command
          command: "true"
---
BODY OF THE SKILL
`;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skill-registry-'));
  await mkdir(join(root, 'ws', '.claude', 'skills', 'release-notes'), { recursive: true });
  await writeFile(join(root, 'ws', '.claude', 'skills', 'release-notes', 'SKILL.md'), SKILL);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const started = (prompt: string) => ({ sessionId: 'a1.ask.a1', team: 'demo', persona: 'con', kind: 'task', situation: 'ask', workspace: join(root, 'ws'), prompt }) as unknown as EventData<typeof sessionStarted>;

/** A session's ports decorated by the registry, over a stream holding `history` (tool-called events). */
async function decorate(prompt: string, policy: { tools?: string[] } = {}, history: Array<{ tool: string; isError: boolean; content: string }> = []) {
  const store = { readStream: async () => history.map((data) => ({ type: 'session.tool-called', data })) } as unknown as EventStore;
  const registry = new SkillRegistry({ HS_AGENT_HOME: join(root, 'home') }, store);
  const engine = new HookEngine({});
  const innerDefs = [{ name: 'Read' }];
  const ports = { tools: { definitions: () => innerDefs, run: async () => ({ content: '', isError: false, filesModified: [], hooks: [] }), onStop: async () => undefined }, system: [{ type: 'text', text: 'Persona: con' }] } as unknown as SessionPorts;
  const built = await registry.decorate(started(prompt), { ports }, { hooks: engine, session: { sessionId: 'a1.ask.a1', cwd: join(root, 'ws') }, policy });
  const system = built.ports.system.map((b) => (b as { text: string }).text).join('\n');
  const tools = built.ports.tools.definitions().map((d) => (d as { name: string }).name);
  return { system, tools, skillHooks: engine.registrations().filter((r) => r.scope === 'skill') };
}

describe('a session decorated by the skills registry', () => {
  it('lists the skill by description and offers the Skill tool, with no body and no hooks yet', async () => {
    const { system, tools, skillHooks } = await decorate('Request: draft the release notes');
    expect(system).toContain('- release-notes: Drafts release notes.');
    expect(system).not.toContain('BODY OF THE SKILL');
    expect(tools).toEqual([SKILL_TOOL, 'Read']);
    expect(skillHooks).toEqual([]);
  });

  it('a slash-command ask has the body in its system prompt and the skill’s hooks active from the start', async () => {
    const { system, skillHooks } = await decorate('Request: /release-notes v2\n\nYou work alone…');
    expect(system).toContain('BODY OF THE SKILL');
    expect(system).toContain('Arguments: v2');
    expect(skillHooks.map((r) => r.event)).toEqual(['PostToolUse']);
  });

  it('a resumed session gets back the hooks of the skills it had loaded', async () => {
    const loaded = { tool: SKILL_TOOL, isError: false, content: '<skill name="release-notes" dir="x">\n\nBODY' };
    const failed = { tool: SKILL_TOOL, isError: true, content: '<skill name="release-notes"' };
    expect((await decorate('Request: draft', {}, [failed])).skillHooks).toEqual([]);
    expect((await decorate('Request: draft', {}, [loaded])).skillHooks.map((r) => r.event)).toEqual(['PostToolUse']);
  });

  it('an allow-list without Skill gets neither the listing nor the tool', async () => {
    const { system, tools } = await decorate('Request: draft the release notes', { tools: ['Read', 'Grep'] });
    expect(system).not.toContain('release-notes');
    expect(tools).toEqual(['Read']);
  });
});
