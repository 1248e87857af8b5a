import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFixtureMcpHttp, type FixtureMcpHttp } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

const BIN = join(resolve(__dirname, '../../../..'), 'bin', 'headspace.js');

/** GET /api/v1/teams/:team/mcp-tools (and `headspace mcp-tools`) through the gateway, the orchestrator behind it connecting the project's servers. */
describe('listing a project’s MCP tools over REST', () => {
  let h: GatewayHarness;
  let dir: string;
  let project: string;
  let fixture: FixtureMcpHttp;
  const list = (source: string, token?: string) => h.call({ method: 'GET', url: `/api/v1/teams/red/mcp-tools?source=${encodeURIComponent(source)}` }, token ?? h.adminToken);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hs-mcp-tools-'));
    project = join(dir, 'projects', 'app');
    await mkdir(project, { recursive: true });
    fixture = await startFixtureMcpHttp();
    await writeFile(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { web: { type: 'http', url: '${MCP_TOOLS_SPEC_URL}' }, broken: { type: 'stdio', command: '' } } }));
    process.env.MCP_TOOLS_SPEC_URL = fixture.url;
    h = await startGatewayHarness({
      label: 'mcptools',
      orchestrator: true,
      env: { HS_SOURCE_ROOTS: join(dir, 'projects'), HS_WORKSPACES_DIR: join(dir, 'runs'), HS_AGENT_HOME: join(dir, 'agents'), HS_SANDBOX: 'off' },
    });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
  }, 120_000);

  afterAll(async () => {
    delete process.env.MCP_TOOLS_SPEC_URL;
    await h?.close();
    await fixture?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists the servers with their status and namespaced tools, and config problems by file and field', async () => {
    const res = await list(project);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.servers).toEqual([
      expect.objectContaining({ name: 'web', scope: 'project', type: 'http', status: 'connected', tools: expect.arrayContaining([expect.objectContaining({ name: 'mcp__web__echo', tool: 'echo', description: 'Echoes the given text back.' })]) }),
    ]);
    expect(body.servers[0].tools).toHaveLength(3);
    expect(body.problems).toEqual([{ source: join(project, '.mcp.json'), field: 'mcpServers.broken.command', server: 'broken', message: expect.any(String) }]);
    expect(body.toolSearchThreshold).toBe(25);
    // Listing calls no tool.
    expect(fixture.calls).toEqual([]);
  });

  it('refuses a source outside the roots (403) and a missing one (400), naming `source`; a viewer may not list (403)', async () => {
    const outside = await list('/etc');
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({ code: 'RUN.SOURCE_NOT_ALLOWED', field: 'source' });
    const missing = await h.call({ method: 'GET', url: '/api/v1/teams/red/mcp-tools' }, h.adminToken);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().field).toBe('source');
    const viewer = await h.issueToken('viewer', ['red']);
    expect((await list(project, viewer)).statusCode).toBe(403);
  });

  it('`headspace mcp-tools --source <dir>` prints the servers and tools, and the problems on stderr', async () => {
    const endpoint = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, HEADSPACE_CONFIG: join(dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h.adminToken, NO_COLOR: '1' }, timeout: 60_000 }, (error, stdout, stderr) =>
          done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const table = await run(['mcp-tools', '-t', 'red', '--source', join('projects', 'app')]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/web \(project, http\).*connected.*mcp__web__echo/);
    expect(table.stdout).toContain('mcp__web__add');
    expect(table.stderr).toContain('mcpServers.broken.command');
    const json = await run(['mcp-tools', '-t', 'red', '--source', project, '--json']);
    expect(JSON.parse(json.stdout).servers[0].tools.map((t: { name: string }) => t.name)).toEqual(['mcp__web__echo', 'mcp__web__add', 'mcp__web__fail']);
  });
});
