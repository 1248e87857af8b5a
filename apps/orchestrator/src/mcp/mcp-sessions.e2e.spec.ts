import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, ErrorCodes, importManifest, listMcpTools, sessionStreamId } from '@headspace/contracts';
import type { EventStore, RecordedEvent } from '@headspace/event-store';
import { startSimulator, type RunningSimulator } from '@headspace/llm';
import { FIXTURE_MCP_STDIO_SCRIPT, startFixtureMcpHttp, type FixtureMcpHttp } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
import type { SessionEvent } from '../sessions/agent-session.decider';
import type { SessionStart, SessionSupervisor } from '../sessions/session-supervisor';
import { startSessionsOnSimulator } from '../sessions/testing/sessions-on-simulator.harness';
import { startRecordingLlmProxy, type RecordingLlmProxy } from './testing/recording-llm-proxy';

/**
 * MCP servers in agent sessions, end to end: a real orchestrator session on the simulator (behind
 * a proxy that keeps each request's tools list) calls the official-SDK fixture over stdio (the
 * workspace's .mcp.json) and streamable HTTP (the agent home's), through hooks and permission rules.
 * Unsandboxed (HS_SANDBOX=off): the fixture needs the repository's node_modules, which a sandbox
 * does not mount; stdio servers inside the sandbox are covered by mcp-connections.int.spec.ts.
 */
const team = 'mcp';
const MANIFEST = `team: ${team}
description: The MCP spec's team
members:
  - name: pat
    role: May only add numbers through MCP
    tools: [Read, "mcp__fixture__add"]
    owns: ["**"]
  - name: sam
    role: Polishes widgets through one MCP server
    tools: [Read, "mcp__many__*"]
    owns: ["**"]
`;
// Denies echo of anything containing "forbidden"; lets every other call through.
const DENY_FORBIDDEN_ECHO = `grep -q forbidden && { echo "the MCP policy forbids echoing that" >&2; exit 2; }; exit 0`;

let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;
let simulator: RunningSimulator;
let proxy: RecordingLlmProxy;
let http: FixtureMcpHttp;

type Recorded = RecordedEvent & SessionEvent;

const stdioFixture = (env: Record<string, string> = {}) => ({ command: '${MCP_SPEC_NODE}', args: ['-r', '${MCP_SPEC_SWC}', '${MCP_SPEC_FIXTURE}'], env });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-mcp-e2e-'));
  process.env.MCP_SPEC_NODE = process.execPath;
  process.env.MCP_SPEC_SWC = require.resolve('@swc-node/register');
  process.env.MCP_SPEC_FIXTURE = FIXTURE_MCP_STDIO_SCRIPT;
  process.env.MCP_SPEC_SECRET_TOKEN = 'must-not-reach-mcp-servers';
  http = await startFixtureMcpHttp();
  const agents = join(root, 'agents');
  await mkdir(join(agents, '.headspace'), { recursive: true });
  await writeFile(join(agents, '.mcp.json'), JSON.stringify({ mcpServers: { fixture: { type: 'http', url: http.url } } }));
  await writeFile(
    join(agents, '.headspace', 'settings.json'),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'mcp__fixture__echo', hooks: [{ type: 'command', command: DENY_FORBIDDEN_ECHO }] }] } }),
  );
  const scenarios = join(__dirname, 'testing', 'scenarios');
  simulator = await startSimulator({ extraScenarioDirs: [scenarios], announce: false, latency: undefined });
  proxy = await startRecordingLlmProxy(simulator.url);
  ({ h, supervisor, store } = await startSessionsOnSimulator({
    name: 'mcp',
    root,
    scenarios,
    orchestratorEnv: {
      ANTHROPIC_API_KEY: 'sk-ant-spec-recording-proxy',
      ANTHROPIC_BASE_URL: proxy.url,
      HS_SANDBOX: 'off',
      HS_MCP_CONNECT_TIMEOUT_MS: '60000',
      HS_MCP_TOOL_SEARCH_THRESHOLD: '25',
      HS_SOURCE_ROOTS: root,
    },
  }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await h.send(importManifest, { yaml: MANIFEST });
});

afterAll(async () => {
  for (const k of ['MCP_SPEC_NODE', 'MCP_SPEC_SWC', 'MCP_SPEC_FIXTURE', 'MCP_SPEC_SECRET_TOKEN']) delete process.env[k];
  await h?.close();
  await proxy?.close();
  await simulator?.close();
  await http?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A git workspace, with a project .mcp.json when `servers` are given. */
async function workspace(servers?: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(root, 'ws-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  if (servers) await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
  return dir;
}

async function runSession(persona: string, situation: string, dir: string) {
  const sessionId = randomUUID();
  const start: SessionStart = { sessionId, team, persona, kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Use the MCP tools.', workspace: dir, situation };
  const ended = supervisor.whenEnded(sessionId);
  await supervisor.start(start);
  const outcome = await ended;
  const events = (await store.readStream(sessionStreamId(sessionId))) as Recorded[];
  const toolCalls = events.filter((e) => e.type === 'session.tool-called').map((e) => (e as Extract<Recorded, { type: 'session.tool-called' }>).data);
  return { outcome, events, toolCalls };
}

/** The stdio fixture's own record of the calls it served (none: it never ran a tool). */
async function stdioCalls(dir: string): Promise<Array<{ tool: string; arguments: Record<string, unknown>; envNames: string[] }>> {
  const text = await readFile(join(dir, 'mcp-calls.jsonl'), 'utf8').catch(() => '');
  return text.trim() ? text.trim().split('\n').map((l) => JSON.parse(l)) : [];
}

const requestsOf = (situation: string) => proxy.requests.filter((r) => r.situation === situation);

describe('MCP servers in agent sessions (simulator, real orchestrator, team-manager and cost governor)', () => {
  it('an agent calls an MCP tool over stdio (project .mcp.json) and over HTTP (agent home .mcp.json); call and result are in its events', async () => {
    const overStdio = await workspace({ fixture: stdioFixture() });
    const stdio = await runSession('mia', 'mcp-echo', overStdio);
    expect(stdio.outcome.exitReason).toBe('completed');
    expect(stdio.toolCalls.map((c) => [c.tool, c.isError, c.content])).toEqual([['mcp__fixture__echo', false, 'echo: hello from mia']]);
    const asked = stdio.events.find((e) => e.type === 'session.model-called');
    expect(JSON.stringify(asked?.data)).toContain('"name":"mcp__fixture__echo"');
    const served = await stdioCalls(overStdio);
    expect(served.map((c) => [c.tool, c.arguments])).toEqual([['echo', { text: 'hello from mia' }]]);
    // The project's stdio server won over the agent home's HTTP one of the same name.
    expect(http.calls).toEqual([]);
    expect(served[0].envNames).toContain('HEADSPACE_SESSION_ID');
    expect(served[0].envNames).not.toContain('MCP_SPEC_SECRET_TOKEN');

    const overHttp = await runSession('mia', 'mcp-echo', await workspace());
    expect(overHttp.outcome.exitReason).toBe('completed');
    expect(overHttp.toolCalls.map((c) => [c.tool, c.isError, c.content])).toEqual([['mcp__fixture__echo', false, 'echo: hello from mia']]);
    expect(http.calls).toEqual([{ tool: 'echo', arguments: { text: 'hello from mia' } }]);
    for (const r of requestsOf('mcp-echo')) expect(r.tools).toEqual(expect.arrayContaining(['Read', 'Bash', 'mcp__fixture__echo', 'mcp__fixture__add']));
  });

  it('a PreToolUse hook matching mcp__fixture__echo denies the call: the server never sees it and the denial is recorded', async () => {
    const dir = await workspace({ fixture: stdioFixture() });
    const { outcome, toolCalls } = await runSession('mia', 'mcp-hook-deny', dir);
    expect(outcome.exitReason).toBe('completed');
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]).toMatchObject({ tool: 'mcp__fixture__echo', isError: true, content: expect.stringContaining('the MCP policy forbids echoing that') });
    expect(toolCalls[0].hooks).toContainEqual(expect.objectContaining({ event: 'PreToolUse', decision: 'deny' }));
    expect(await stdioCalls(dir)).toEqual([]);
  });

  it('a permission rule allowing only mcp__fixture__add refuses echo and lets add run', async () => {
    const dir = await workspace({ fixture: stdioFixture() });
    const { outcome, toolCalls } = await runSession('pat', 'mcp-scoped', dir);
    expect(outcome.exitReason).toBe('completed');
    expect(toolCalls.map((c) => [c.tool, c.isError])).toEqual([['mcp__fixture__echo', true], ['mcp__fixture__add', false]]);
    expect(toolCalls[0].content).toMatch(/not in this persona's allowed tools \(Read, mcp__fixture__add\)/);
    expect(toolCalls[1].content).toBe('5');
    expect((await stdioCalls(dir)).map((c) => c.tool)).toEqual(['add']);
    const offered = requestsOf('mcp-scoped')[0].tools;
    expect(offered).toContain('mcp__fixture__add');
    expect(offered).not.toContain('mcp__fixture__echo');
  });

  it('with more MCP tools than the threshold (a persona allowed mcp__many__*) the prompt offers ToolSearch; a found tool is offered and callable from the next turn', async () => {
    const dir = await workspace({ many: stdioFixture({ FIXTURE_EXTRA_TOOLS: '30' }) });
    const { outcome, toolCalls } = await runSession('sam', 'mcp-tool-search', dir);
    expect(outcome.exitReason).toBe('completed');
    const requests = requestsOf('mcp-tool-search');
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests[0].tools).toContain('ToolSearch');
    expect(requests[0].tools.filter((t) => t.startsWith('mcp__'))).toEqual([]);
    expect(toolCalls.map((c) => [c.tool, c.isError])).toEqual([['mcp__many__widget_7', true], ['ToolSearch', false], ['mcp__many__widget_7', false]]);
    expect(toolCalls[0].content).toMatch(/not loaded yet/);
    expect(toolCalls[1].content).toContain('mcp__many__widget_7: Polishes widget number 7');
    expect(toolCalls[2].content).toBe('polished 3 of widget 7');
    // Loaded tools are appended: what the first request offered stays the prefix (prompt cache).
    const third = requests[2].tools;
    expect(third.slice(0, requests[0].tools.length)).toEqual(requests[0].tools);
    expect(third.slice(requests[0].tools.length)).toEqual(['mcp__many__widget_7']);
    expect((await stdioCalls(dir)).map((c) => [c.tool, c.arguments])).toEqual([['widget_7', { count: 3 }]]);
  });

  it('lists a project’s MCP servers with status and namespaced tools, and every config problem by file and field', async () => {
    const dir = await workspace({ many: stdioFixture({ FIXTURE_EXTRA_TOOLS: '2' }), broken: { type: 'http' }, down: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    const listed = await h.send(listMcpTools, { team, source: dir }, { timeoutMs: 90_000 });
    expect(listed.toolSearchThreshold).toBe(25);
    expect(listed.servers.map((s) => [s.name, s.scope, s.type, s.status])).toEqual([
      ['fixture', 'user', 'http', 'connected'],
      ['many', 'project', 'stdio', 'connected'],
      ['down', 'project', 'http', 'failed'],
    ]);
    expect(listed.servers[1].tools.map((t) => t.name)).toEqual(['mcp__many__echo', 'mcp__many__add', 'mcp__many__fail', 'mcp__many__widget_0', 'mcp__many__widget_1']);
    expect(listed.servers[1].tools[1]).toMatchObject({ tool: 'add', description: 'Adds two numbers.', inputSchema: { type: 'object', required: ['a', 'b'] } });
    expect(listed.servers[2].error).toBeTruthy();
    expect(listed.problems).toEqual([{ source: join(dir, '.mcp.json'), field: 'mcpServers.broken.url', server: 'broken', message: expect.any(String) }]);

    const outside = await h.sendError(listMcpTools, { team, source: tmpdir() });
    expect(outside).toMatchObject({ code: ErrorCodes.runSourceNotAllowed, field: 'source' });
  });
});
