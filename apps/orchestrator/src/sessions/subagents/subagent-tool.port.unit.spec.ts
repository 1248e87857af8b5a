import { HookEngine, parseAgentDefinition, type AgentDefinition, type HookInput } from '@headspace/agent-runtime';
import { subagentResultSchema, type SubagentResult } from '@headspace/contracts';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../agent-session.decider';
import { SessionInterrupted } from '../run-session/agent-session.runner';
import type { ToolOutcome, ToolPort } from '../run-session/session-ports';
import { agentToolName, delegableAgents, mayDelegate } from './agent-tools';
import { allowList, childSessionId } from './subagent-sessions.service';
import { subagentResultOf } from './subagent-result';
import { SubagentToolPort, type Delegate } from './subagent-tool.port';

const agent = (name: string, extra = ''): AgentDefinition =>
  parseAgentDefinition(`---\nname: ${name}\ndescription: The ${name} agent. Use it for ${name} work, e.g. "do it".\n${extra}---\nYou are ${name}.\n`, { source: `/p/.headspace/agents/${name}.md`, scope: 'project' });

/** The lead's other tools: answers every call it is given, and says so. */
class InnerTools implements ToolPort {
  readonly calls: string[] = [];
  readonly loaded: Array<Record<string, unknown>> = [];
  private defs: Array<Record<string, unknown>> = [];
  /** A new array when a tool was loaded, the same one otherwise (as WorkspaceToolPort does). */
  definitions() {
    if (this.defs.length !== 1 + this.loaded.length) this.defs = [{ name: 'Read', description: 'Read a file', input_schema: { type: 'object' } }, ...this.loaded];
    return this.defs;
  }
  async run(call: { name: string }): Promise<ToolOutcome> {
    this.calls.push(call.name);
    return { content: `inner ${call.name}`, isError: false, filesModified: [], hooks: [] };
  }
  async onStop() {
    return undefined;
  }
}

const resultFor = (name: string, files: string[] = []): SubagentResult => ({
  agent: name,
  status: 'completed',
  model: 'claude-haiku-4-5-20251001',
  sessionId: `lead--${name}`,
  summary: `${name} did it`,
  turnsUsed: 2,
  tokensConsumed: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
  toolsUsed: ['Read'],
  filesModified: files,
  exitReason: 'completed',
});

function portWith(agents: AgentDefinition[], hooks = new HookEngine()) {
  const inner = new InnerTools();
  const delegated: Array<{ agent: string; prompt: string; toolUseId: string }> = [];
  const delegate: Delegate = async (a, task) => {
    delegated.push({ agent: a.key, ...task });
    return resultFor(a.key, a.key === 'writer' ? ['NOTES.md'] : []);
  };
  const port = new SubagentToolPort(inner, { agents, hooks, session: { sessionId: 'lead', cwd: tmpdir(), agentId: 'lead' }, delegate });
  return { port, inner, delegated };
}

/** A hook that records what it was given and decides nothing (or denies, when told to). */
const recorder = (event: 'PreToolUse' | 'SubagentStop', seen: HookInput[], verdict: 'noop' | 'deny' = 'noop') => ({
  scope: 'managed' as const,
  source: 'spec',
  event,
  handler: { type: 'builtin' as const, name: `${event}-recorder`, run: (input: HookInput) => (seen.push(input), verdict === 'deny' ? { verdict, reason: 'not today' } : { verdict }) },
});

describe('SubagentToolPort', () => {
  it('offers one agent__<name> tool per agent, then the inner tools (wire-safe names, same array every turn)', () => {
    const { port } = portWith([agent('reviewer'), agent('writer')]);
    const defs = port.definitions();
    expect(defs.map((d) => d.name)).toEqual(['agent__reviewer', 'agent__writer', 'Read']);
    expect(defs[0]).toMatchObject({ description: expect.stringContaining('The reviewer agent.'), input_schema: { required: ['prompt'] } });
    expect(port.definitions()).toBe(defs);
    for (const d of defs) expect(String(d.name)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('when the inner tools grow (Tool Search loaded one), the earlier array stays a prefix of the new one', () => {
    const { port, inner } = portWith([agent('writer')]);
    const first = port.definitions();
    inner.loaded.push({ name: 'mcp__many__widget_7', description: 'w', input_schema: { type: 'object' } });
    const next = port.definitions();
    expect(next.slice(0, first.length)).toEqual(first);
    expect(next.map((d) => d.name)).toEqual(['agent__writer', 'Read', 'mcp__many__widget_7']);
  });

  it('maps registry keys onto the API tool-name charset', () => {
    expect(agentToolName('code-reviewer')).toBe('agent__code-reviewer');
    expect(agentToolName('my-plugin:linter')).toBe('agent__my-plugin__linter');
    expect(agentToolName(`a${'b'.repeat(100)}`)).toHaveLength(64);
  });

  it('answers an agent call with the AgentResult as JSON and the files it changed; other calls go to the inner port', async () => {
    const { port, inner, delegated } = portWith([agent('reviewer'), agent('writer')]);
    const out = await port.run({ id: 'toolu_1', name: 'agent__writer', input: { prompt: 'Write NOTES.md' } });
    expect(out.isError).toBe(false);
    expect(subagentResultSchema.parse(JSON.parse(out.content))).toMatchObject({ agent: 'writer', status: 'completed', filesModified: ['NOTES.md'] });
    expect(out.filesModified).toEqual(['NOTES.md']);
    expect(delegated).toEqual([{ agent: 'writer', prompt: 'Write NOTES.md', toolUseId: 'toolu_1' }]);
    expect((await port.run({ id: 'toolu_2', name: 'Read', input: {} })).content).toBe('inner Read');
    expect(inner.calls).toEqual(['Read']);
    expect(port.typeOf('agent__writer')).toBe('extension');
  });

  it('an interrupted delegation (shutdown) stops the lead instead of becoming a tool result', async () => {
    const port = new SubagentToolPort(new InnerTools(), {
      agents: [agent('writer')],
      hooks: new HookEngine(),
      session: { sessionId: 'lead', cwd: tmpdir(), agentId: 'lead' },
      delegate: async () => {
        throw new SessionInterrupted();
      },
    });
    await expect(port.run({ id: 'toolu_1', name: 'agent__writer', input: { prompt: 'Write' } })).rejects.toBeInstanceOf(SessionInterrupted);
  });

  it('refuses an agent call without a prompt, naming the field, and runs nothing', async () => {
    const { port, delegated } = portWith([agent('reviewer')]);
    const out = await port.run({ id: 'toolu_1', name: 'agent__reviewer', input: {} });
    expect(out.isError).toBe(true);
    expect(out.content).toContain('prompt');
    expect(delegated).toEqual([]);
  });

  it('a PreToolUse hook can deny the delegation; SubagentStop fires with agent_type, subagent_id and summary', async () => {
    const hooks = new HookEngine();
    const pre: HookInput[] = [];
    const stops: HookInput[] = [];
    hooks.add({ ...recorder('PreToolUse', pre, 'deny'), matcher: 'agent__reviewer' });
    hooks.add(recorder('SubagentStop', stops));
    const { port, delegated } = portWith([agent('reviewer'), agent('writer')], hooks);

    const denied = await port.run({ id: 'toolu_1', name: 'agent__reviewer', input: { prompt: 'Review' } });
    expect(denied).toMatchObject({ isError: true, hooks: [{ event: 'PreToolUse', decision: 'deny', reason: 'not today' }] });
    expect(delegated).toEqual([]);

    const ran = await port.run({ id: 'toolu_2', name: 'agent__writer', input: { prompt: 'Write' } });
    expect(stops).toEqual([expect.objectContaining({ hook_event_name: 'SubagentStop', agent_type: 'writer', subagent_id: 'lead--writer', summary: 'writer did it' })]);
    expect(ran.hooks).toContainEqual({ event: 'SubagentStop', decision: 'noop' });
  });

  it("the definition's own Stop hooks fire as SubagentStop when its child ends", async () => {
    const withHook = agent('writer', 'hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: "exit 0"\n');
    const { port } = portWith([withHook]);
    const out = await port.run({ id: 'toolu_1', name: 'agent__writer', input: { prompt: 'Write' } });
    expect(out.hooks).toContainEqual({ event: 'SubagentStop', decision: 'noop' });
  });
});

describe('who may delegate to whom', () => {
  it('a lead without an allow-list may delegate to any agent; one with an allow-list only to what it names', () => {
    expect(mayDelegate({}, 'writer')).toBe(true);
    expect(mayDelegate({ tools: ['Read', 'Glob', 'Grep'] }, 'writer')).toBe(false);
    expect(mayDelegate({ tools: ['Read', 'Agent'] }, 'writer')).toBe(true);
    expect(mayDelegate({ tools: ['Agent(reviewer)'] }, 'writer')).toBe(false);
    expect(mayDelegate({ tools: ['Task(writer)'] }, 'writer')).toBe(true);
    expect(mayDelegate({ disallowedTools: ['Agent(writer)'] }, 'writer')).toBe(false);
    expect(delegableAgents([agent('writer'), agent('reviewer')], {}).map((a) => a.key)).toEqual(['reviewer', 'writer']);
  });

  it('offers the shipped templates only to a lead whose allow-list names delegation', () => {
    const template = { ...agent('explorer'), scope: 'built-in' as const };
    expect(delegableAgents([template, agent('writer')], {}).map((a) => a.key)).toEqual(['writer']);
    expect(delegableAgents([template, agent('writer')], { tools: ['Read', 'Agent'] }).map((a) => a.key)).toEqual(['explorer', 'writer']);
  });

  it("a child's allow-list: the definition's tools, or every workspace tool but the disallowed ones", () => {
    expect(allowList(['Read', 'Grep'], undefined)).toEqual(['Read', 'Grep']);
    expect(allowList(['*'], undefined)).toBeUndefined();
    expect(allowList(undefined, ['Bash', 'Write'])).toEqual(['Read', 'Edit', 'MultiEdit', 'Glob', 'Grep']);
    expect(allowList(undefined, undefined)).toBeUndefined();
  });

  it('a child session id is derived from the lead and the tool call, in the id charset', () => {
    expect(childSessionId('lead-1', 'toolu_01:ab')).toBe('lead-1--toolu_01_ab');
    expect(childSessionId('l'.repeat(190), 'toolu_1234567890')).toHaveLength(200);
  });
});

describe('subagentResultOf', () => {
  const usage = { inputTokens: 1_000, outputTokens: 200, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
  const at = '2026-11-26T00:00:00.000Z';
  const events = (exitReason: 'completed' | 'max_turns'): SessionEvent[] => [
    { type: 'session.started', data: { sessionId: 'c1', parentSessionId: 'lead', team: 't', persona: 'writer', kind: 'task', model: 'claude-sonnet-4-6', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'p', startedAt: at } },
    { type: 'session.model-called', data: { sessionId: 'c1', turn: 1, model: 'claude-sonnet-4-6', stopReason: 'end_turn', content: [], usage, injectedMessageIds: [], durationMs: 1, at } },
    { type: 'session.ended', data: { sessionId: 'c1', exitReason, summary: 'Wrote it', turns: 1, usage, toolsUsed: ['Write'], filesModified: ['NOTES.md'], at } },
  ];

  it('is the child’s AgentResult: summary, files, tokens, model and session id', () => {
    expect(subagentResultOf('writer', events('completed'))).toEqual({
      agent: 'writer',
      status: 'completed',
      sessionId: 'c1',
      model: 'claude-sonnet-4-6',
      summary: 'Wrote it',
      turnsUsed: 1,
      tokensConsumed: { input: 1_000, output: 200, cacheRead: 0, cacheWrite: 0 },
      toolsUsed: ['Write'],
      filesModified: ['NOTES.md'],
      exitReason: 'completed',
    });
  });

  it('a child that did not complete is failed, with a stable error code', () => {
    expect(subagentResultOf('writer', events('max_turns'))).toMatchObject({ status: 'failed', exitReason: 'max_turns', error: { code: 'SUBAGENT.NOT_COMPLETED' } });
  });

  it('a child still running has no result yet', () => {
    expect(() => subagentResultOf('writer', events('completed').slice(0, 2))).toThrow(/has not ended/);
  });
});
