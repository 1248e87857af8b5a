import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '@headspace/llm';
import { findClaudeCli, simulatedClaudeEnv } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

const BIN = join(__dirname, '..', '..', '..', '..', 'bin', 'headspace.js');

/** The model's script: call Headspace's create_task through the HTTP server, then finish. */
const SCENARIOS = {
  'default.yaml': { id: 'default', persona: '*', situation: '*', steps: [{ text: 'Default answer.' }] },
  'mcp-create.yaml': {
    id: 'mcp-create',
    persona: '*',
    situation: '*',
    prompt: '^Add a Headspace task',
    steps: [
      { tool_use: [{ name: 'mcp__headspace__create_task', input: { team: 'alpha', id: 'from-claude', subject: 'Created by Claude Code' } }] },
      { text: 'The task is on the list.' },
    ],
  },
};

interface StreamEvent {
  type: string;
  subtype?: string;
  tools?: string[];
  mcp_servers?: Array<{ name: string; status: string }>;
  is_error?: boolean;
}

/**
 * The real Claude Code CLI (dev dependency) given Headspace through `--mcp-config`: the HTTP endpoint
 * with a bearer token and `headspace mcp` over stdio, its model the Messages-API simulator.
 */
describe('Claude Code drives Headspace through MCP', () => {
  let h: GatewayHarness;
  let sim: RunningSimulator;
  const temp = mkdtempSync(join(tmpdir(), 'hs-mcp-cc-'));

  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwmcpcc' });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'alpha' } }, h.adminToken)).statusCode).toBe(201);
    for (const [file, scenario] of Object.entries(SCENARIOS)) {
      writeFileSync(join(temp, file), JSON.stringify(scenario));
    }
    sim = await startSimulator({ port: 0, scenariosDir: temp, announce: false, latency: undefined });
  });
  afterAll(async () => {
    await sim?.close();
    await h?.close();
    rmSync(temp, { recursive: true, force: true });
  });

  it('lists the tools of both servers as connected and creates a task through them', async () => {
    const binary = findClaudeCli();
    if (binary === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
    const endpoint = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
    const token = await h.issueToken('operator', ['alpha']);
    const home = mkdtempSync(join(temp, 'home-'));
    const config = join(temp, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          headspace: { type: 'http', url: `${endpoint}/mcp`, headers: { Authorization: `Bearer ${token}` } },
          headspace_stdio: {
            type: 'stdio',
            command: process.execPath,
            args: [BIN, 'mcp'],
            env: { HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: token, HEADSPACE_CONFIG: join(home, 'headspace.json') },
          },
        },
      }),
    );
    const args = [
      '-p',
      'Add a Headspace task for the docs',
      '--model',
      'sonnet',
      '--output-format',
      'stream-json',
      '--verbose',
      '--mcp-config',
      config,
      '--strict-mcp-config',
      '--setting-sources',
      '',
      '--allowedTools',
      'mcp__headspace__create_task',
      '--max-turns',
      '4',
    ];
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        binary,
        args,
        {
          cwd: home,
          timeout: 150_000,
          maxBuffer: 64 * 1024 * 1024,
          env: { PATH: process.env.PATH, ...simulatedClaudeEnv(home, sim.url) },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as StreamEvent);
    const init = events.find((e) => e.type === 'system' && e.subtype === 'init');
    expect(init?.mcp_servers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'headspace', status: 'connected' }),
        expect.objectContaining({ name: 'headspace_stdio', status: 'connected' }),
      ]),
    );
    for (const server of ['headspace', 'headspace_stdio']) {
      expect(init?.tools).toEqual(expect.arrayContaining(['create_task', 'claim_task', 'read_mailbox', 'list_tasks'].map((tool) => `mcp__${server}__${tool}`)));
    }
    expect(events.find((e) => e.type === 'result')).toMatchObject({ subtype: 'success', is_error: false });
    const task = await h.call({ method: 'GET', url: '/api/v1/teams/alpha/tasks?ids=from-claude' }, token);
    expect(task.json().items).toEqual([expect.objectContaining({ taskId: 'from-claude', subject: 'Created by Claude Code' })]);
  }, 180_000);
});
