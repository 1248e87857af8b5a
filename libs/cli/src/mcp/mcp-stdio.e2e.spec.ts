import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { waitFor } from '@headspace/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the real binary against the real services, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../../../apps/gateway/src/testing/gateway-harness';

const BIN = join(__dirname, '..', '..', '..', '..', 'bin', 'headspace.js');

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: ToolResult) => (result.content as Array<{ text: string }>)[0].text;
const jsonOf = (result: ToolResult) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return JSON.parse(textOf(result));
};

/** The official SDK's stdio client spawning the real `headspace mcp` against a real gateway. */
describe('headspace mcp (stdio)', { timeout: 120_000 }, () => {
  let h: GatewayHarness;
  let endpoint: string;
  const home = mkdtempSync(join(tmpdir(), 'hs-mcp-stdio-'));
  const clients: Client[] = [];
  const stderr: string[] = [];

  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'climcp' });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'alpha' } }, h.adminToken)).statusCode).toBe(201);
    for (const memberId of ['con', 'al']) {
      expect((await h.call({ method: 'POST', url: '/api/v1/teams/alpha/inboxes', payload: { memberId, role: 'member' } }, h.adminToken)).statusCode).toBe(201);
    }
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  afterAll(async () => {
    await h?.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** `headspace mcp` with the endpoint and token from the environment, as an MCP client config gives them. */
  async function spawnMcp(token: string): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: token, HEADSPACE_CONFIG: join(home, 'config.json'), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'mcp-stdio-spec', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('lists the tools, creates and claims a task, sends mail and reads the mailbox', async () => {
    const operator = await h.issueToken('operator', ['alpha']);
    const client = await spawnMcp(operator);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_tasks', 'create_task', 'claim_task', 'read_mailbox']));

    expect(jsonOf(await client.callTool({ name: 'create_task', arguments: { team: 'alpha', id: 'stdio-1', subject: 'Try the stdio server' } }))).toMatchObject({ taskId: 'stdio-1' });
    expect(jsonOf(await client.callTool({ name: 'claim_task', arguments: { team: 'alpha', taskId: 'stdio-1', owner: 'al' } }))).toMatchObject({ owner: 'al' });
    const onRest = await waitFor(async () => (await h.call({ method: 'GET', url: '/api/v1/teams/alpha/tasks?owner=al' }, operator)).json().items[0]);
    expect(onRest).toMatchObject({ taskId: 'stdio-1', status: 'claimed' });
    // the CLI remembers the position of its writes: its next read already shows the claim
    expect(jsonOf(await client.callTool({ name: 'list_tasks', arguments: { team: 'alpha', status: 'claimed' } })).items).toEqual([expect.objectContaining({ taskId: 'stdio-1', owner: 'al' })]);

    const sent = await client.callTool({ name: 'send_message', arguments: { team: 'alpha', from: 'al', to: 'con', summary: 'claimed the stdio task just now', body: 'On it.' } });
    expect(sent.isError, textOf(sent)).toBeFalsy();
    const mail = await waitFor(async () => jsonOf(await client.callTool({ name: 'read_mailbox', arguments: { team: 'alpha', memberId: 'con' } })).items[0]);
    expect(mail).toMatchObject({ from: 'al', body: 'On it.' });
  });

  it('without an endpoint exits with a usage error on stderr, writing nothing to stdout', async () => {
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, 'mcp'], { env: { PATH: process.env.PATH, HEADSPACE_CONFIG: join(home, 'none.json'), NO_COLOR: '1' } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('No API endpoint configured');
  });

  it('reports the 401 of a wrong token in the tool result, and never prints it', async () => {
    const wrong = 'hst_wrong_token_for_the_stdio_spec';
    const client = await spawnMcp(wrong);
    const result = await client.callTool({ name: 'list_tasks', arguments: { team: 'alpha' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('401 AUTH.UNAUTHENTICATED');
    expect(stderr.join('')).not.toContain(wrong);
  });
});
