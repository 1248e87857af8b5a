import { FIXTURE_MCP_STDIO_SCRIPT, startFixtureMcpHttp, type FixtureMcpHttp } from '@headspace/testing';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox/create-sandbox';
import { sandboxAvailability } from '../sandbox/sandbox-availability';
import { SANDBOX_HOME } from '../sandbox/sandbox-policy';
import type { McpServerEntry } from './mcp-config';
import { McpConnections } from './mcp-connections';
import { RAW_STDIO_MCP_SERVER } from './testing/raw-stdio-mcp-server';

const swcRegister = require.resolve('@swc-node/register');
const limits = { connectTimeoutMs: 15_000, toolTimeoutMs: 10_000 };
const ctx = (workspaceRoot: string) => ({ workspaceRoot, agentId: 'con', toolUseId: 'tu' });

let root: string;
let http: FixtureMcpHttp;

const stdioFixture = (name: string, env: Record<string, string> = {}): McpServerEntry => ({
  name,
  scope: 'project',
  source: 'spec',
  config: { type: 'stdio', command: process.execPath, args: ['-r', swcRegister, FIXTURE_MCP_STDIO_SCRIPT], env },
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-mcp-conn-'));
  http = await startFixtureMcpHttp();
  // Something secret-looking in the orchestrator's environment: no MCP server may see it.
  process.env.MCP_SPEC_API_KEY = 'sk-must-not-leak';
});

afterAll(async () => {
  delete process.env.MCP_SPEC_API_KEY;
  await http?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('MCP connections through the official SDK client', () => {
  it('connects to a stdio server, lists its tools namespaced, and calls one with the scrubbed environment', async () => {
    const calls = join(root, 'stdio-calls.jsonl');
    const mcp = await McpConnections.open([stdioFixture('fixture', { FIXTURE_CALLS_FILE: calls })], { cwd: root, extraEnv: { HEADSPACE_SESSION_ID: 's-1' }, ...limits });
    try {
      expect(mcp.servers.map((s) => [s.name, s.status, s.error])).toEqual([['fixture', 'connected', undefined]]);
      expect(mcp.tools().map((t) => t.name)).toEqual(['mcp__fixture__echo', 'mcp__fixture__add', 'mcp__fixture__fail']);
      const echo = mcp.tools()[0];
      expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
      expect(await echo.execute({ text: 'hello' }, ctx(root))).toEqual({ content: 'echo: hello', isError: false });
      expect(await mcp.tools()[2].execute({}, ctx(root))).toMatchObject({ content: 'failed: as asked', isError: true, code: 'MCP.TOOL_FAILED' });
      const seen = (await readFile(calls, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { tool: string; envNames: string[] });
      expect(seen.map((c) => c.tool)).toEqual(['echo', 'fail']);
      expect(seen[0].envNames).toEqual(expect.arrayContaining(['HEADSPACE_SESSION_ID', 'FIXTURE_CALLS_FILE', 'PATH']));
      expect(seen[0].envNames).not.toContain('MCP_SPEC_API_KEY');
    } finally {
      await mcp.close();
    }
  });

  it('connects to a streamable-HTTP server with the configured headers', async () => {
    const entry: McpServerEntry = { name: 'web', scope: 'user', source: 'spec', config: { type: 'http', url: http.url, headers: { 'X-Fixture-Key': 'k-123' } } };
    const mcp = await McpConnections.open([entry], { cwd: root, ...limits });
    try {
      const add = mcp.tools().find((t) => t.name === 'mcp__web__add');
      expect(await add?.execute({ a: 2, b: 3 }, ctx(root))).toEqual({ content: '5', isError: false });
      expect(http.calls).toContainEqual({ tool: 'add', arguments: { a: 2, b: 3 } });
      expect(http.headers.every((h) => h['x-fixture-key'] === 'k-123')).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('reports a server that cannot start, refuses, or never answers, and still connects the others', async () => {
    const entries: McpServerEntry[] = [
      { name: 'missing', scope: 'project', source: 'spec', config: { type: 'stdio', command: join(root, 'no-such-server'), args: [], env: {} } },
      { name: 'silent', scope: 'project', source: 'spec', config: { type: 'stdio', command: 'sleep', args: ['30'], env: {} } },
      { name: 'down', scope: 'project', source: 'spec', config: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} } },
      { name: 'web', scope: 'project', source: 'spec', config: { type: 'http', url: http.url, headers: {} } },
    ];
    const started = Date.now();
    const mcp = await McpConnections.open(entries, { cwd: root, connectTimeoutMs: 1_500, toolTimeoutMs: 1_000 });
    try {
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(mcp.servers.map((s) => [s.name, s.status])).toEqual([['missing', 'failed'], ['silent', 'failed'], ['down', 'failed'], ['web', 'connected']]);
      expect(mcp.servers[1].error).toMatch(/timed out/);
      expect(mcp.servers.every((s) => s.status === 'connected' || (s.error ?? '').length > 0)).toBe(true);
      expect(mcp.tools().map((t) => t.name)).toEqual(['mcp__web__echo', 'mcp__web__add', 'mcp__web__fail']);
    } finally {
      await mcp.close();
    }
  });

  it('runs a stdio server inside the session sandbox when there is one', async () => {
    const probed = await sandboxAvailability();
    if (!probed.available) throw new Error(`bubblewrap is required for this spec: ${probed.reason}`);
    const workspace = join(root, 'ws');
    execFileSync('git', ['init', '-q', workspace]);
    await writeFile(join(workspace, 'server.cjs'), RAW_STDIO_MCP_SERVER);
    const sandbox = await createSandbox(probed, { workspace, workspaceAccess: 'rw', network: false });
    const entry: McpServerEntry = { name: 'raw', scope: 'project', source: 'spec', config: { type: 'stdio', command: 'node', args: ['server.cjs'], env: { RAW_LEVEL: 'debug' } } };
    const mcp = await McpConnections.open([entry], { cwd: workspace, sandbox, extraEnv: { HEADSPACE_SESSION_ID: 's-2' }, ...limits });
    try {
      expect(mcp.servers[0]).toMatchObject({ status: 'connected' });
      const out = await mcp.tools()[0].execute({ probe: __dirname }, ctx(workspace));
      const seen = JSON.parse(out.content) as { home: string; hostname: string; probeExists: boolean; envNames: string[] };
      expect(seen).toMatchObject({ home: SANDBOX_HOME, hostname: 'sandbox', probeExists: false });
      expect(seen.envNames).toEqual(expect.arrayContaining(['RAW_LEVEL', 'HEADSPACE_SESSION_ID']));
      expect(seen.envNames).not.toContain('MCP_SPEC_API_KEY');
    } finally {
      await mcp.close();
    }
  });
});
