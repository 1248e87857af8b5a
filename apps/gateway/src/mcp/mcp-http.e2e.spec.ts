import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitFor } from '@headspace/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

type ToolResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: ToolResult) => (result.content as Array<{ text: string }>)[0].text;
const jsonOf = (result: ToolResult) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return JSON.parse(textOf(result));
};

/** The official SDK's client against the gateway's `/mcp`, on a real port, real services behind it. */
describe('Headspace as an MCP server over Streamable HTTP', () => {
  let h: GatewayHarness;
  let endpoint: URL;
  let operator: string;
  let viewer: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwmcp' });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    const address = h.http().server.address() as { port: number };
    endpoint = new URL(`http://127.0.0.1:${address.port}/mcp`);
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'alpha' } }, h.adminToken)).statusCode).toBe(201);
    for (const memberId of ['con', 'al']) {
      const opened = await h.call({ method: 'POST', url: '/api/v1/teams/alpha/inboxes', payload: { memberId, role: 'member' } }, h.adminToken);
      expect(opened.statusCode).toBe(201);
    }
    operator = await h.issueToken('operator', ['alpha']);
    viewer = await h.issueToken('viewer', ['alpha']);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  afterAll(async () => h?.close());

  async function connect(token?: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(endpoint, token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
    const client = new Client({ name: 'mcp-http-spec', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const tasksOf = async (query: string, token = operator) =>
    (await h.call({ method: 'GET', url: `/api/v1/teams/alpha/tasks?${query}` }, token)).json().items as Array<{ taskId: string; owner: string | null; status: string }>;

  it('lists the tools, creates a task, claims it — and REST shows it claimed', async () => {
    const client = await connect(operator);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_teams', 'list_tasks', 'create_task', 'claim_task', 'send_message', 'read_mailbox']));

    const created = jsonOf(await client.callTool({ name: 'create_task', arguments: { team: 'alpha', id: 'mcp-docs', subject: 'Document the MCP endpoint' } }));
    expect(created).toMatchObject({ taskId: 'mcp-docs' });
    const claimed = jsonOf(await client.callTool({ name: 'claim_task', arguments: { team: 'alpha', taskId: 'mcp-docs', owner: 'con' } }));
    expect(claimed).toMatchObject({ taskId: 'mcp-docs', owner: 'con', attempt: 1 });

    const onRest = await waitFor(async () => (await tasksOf('status=claimed')).find((t) => t.taskId === 'mcp-docs'));
    expect(onRest).toMatchObject({ owner: 'con', status: 'claimed' });
    const listed = jsonOf(await client.callTool({ name: 'list_tasks', arguments: { team: 'alpha', owner: 'con' } }));
    expect(listed.items).toEqual([expect.objectContaining({ taskId: 'mcp-docs', status: 'claimed' })]);
  });

  it('a write retried with its idempotency_key is done once: create_task twice with one key creates one task, both answers the same', async () => {
    const client = await connect(operator);
    const create = await client.listTools().then(({ tools }) => tools.find((t) => t.name === 'create_task'));
    expect(create?.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(JSON.stringify(create?.inputSchema.properties?.idempotency_key)).toContain('send the same key when retrying');

    const subject = 'Retried over MCP';
    const before = (await h.db.pool.query<{ n: string }>(`SELECT coalesce(max(global_position), 0) AS n FROM team_manager.events`)).rows[0].n;
    const key = randomUUID();
    const first = await client.callTool({ name: 'create_task', arguments: { team: 'alpha', subject, idempotency_key: key } });
    // A second client, as a reconnecting caller would be, retrying the same call.
    const again = await (await connect(operator)).callTool({ name: 'create_task', arguments: { team: 'alpha', subject, idempotency_key: key } });
    expect(jsonOf(again)).toEqual(jsonOf(first));
    const { taskId } = jsonOf(first) as { taskId: string };
    const created = await h.db.pool.query(`SELECT stream_id FROM team_manager.events WHERE type = 'task.created' AND global_position > $1`, [before]);
    expect(created.rows).toEqual([{ stream_id: `task-alpha.${taskId}` }]);
    const listed = await waitFor(async () => {
      const page = jsonOf(await client.callTool({ name: 'list_tasks', arguments: { team: 'alpha', limit: 500 } })) as { items: Array<{ taskId: string; subject: string }> };
      const withSubject = page.items.filter((t) => t.subject === subject);
      return withSubject.length ? withSubject : undefined;
    });
    expect(listed.map((t) => t.taskId)).toEqual([taskId]);

    // Without a key each call is a new command, as before.
    const one = jsonOf(await client.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'No key over MCP' } })) as { taskId: string };
    const two = jsonOf(await client.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'No key over MCP' } })) as { taskId: string };
    expect(two.taskId).not.toBe(one.taskId);
  });

  it('refuses an unusable idempotency_key naming it, and writes nothing', async () => {
    const client = await connect(operator);
    const before = await h.eventCount();
    const refused = await client.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'Bad key', idempotency_key: 'has a space' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('idempotency_key');
    expect(await h.eventCount()).toBe(before);
  });

  it('sends a message and reads it from the mailbox', async () => {
    const client = await connect(operator);
    const sent = await client.callTool({
      name: 'send_message',
      arguments: { team: 'alpha', from: 'con', to: 'al', summary: 'the MCP endpoint is documented now', body: 'See the README section on MCP.' },
    });
    expect(sent.isError, textOf(sent)).toBeFalsy();
    const mail = await waitFor(async () => {
      const page = jsonOf(await client.callTool({ name: 'read_mailbox', arguments: { team: 'alpha', memberId: 'al' } }));
      return page.items.length ? page.items : undefined;
    });
    expect(mail).toEqual([expect.objectContaining({ from: 'con', body: 'See the README section on MCP.', read: false })]);
  });

  it('keeps REST’s team scope: an alpha token cannot create a task in another team', async () => {
    const client = await connect(operator);
    const result = await client.callTool({ name: 'create_task', arguments: { team: 'beta', subject: 'Not mine' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('403 AUTH.FORBIDDEN: This token may not act on team "beta"');
  });

  it('refuses a caller without a valid token before any MCP processing', async () => {
    await expect(connect()).rejects.toThrow(/401|Unauthorized/i);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    for (const authorization of [undefined, 'Bearer hst_not_a_real_token']) {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ code: 'AUTH.UNAUTHENTICATED' });
    }
  });

  it('lets a viewer read but not write, and nothing is written', async () => {
    const client = await connect(viewer);
    const listed = jsonOf(await client.callTool({ name: 'list_tasks', arguments: { team: 'alpha' } }));
    expect(listed.items.map((t: { taskId: string }) => t.taskId)).toContain('mcp-docs');
    const before = await h.eventCount();
    const refused = await client.callTool({ name: 'create_task', arguments: { team: 'alpha', id: 'viewer-task', subject: 'Should not exist' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('403 AUTH.FORBIDDEN');
    expect(textOf(refused)).toContain('needs the operator role; the token has viewer');
    expect(await h.eventCount()).toBe(before);
    expect((await tasksOf('ids=viewer-task')).length).toBe(0);
  });

  it('answers with the gateway’s security headers, and 405 to GET (stateless: no server stream)', async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${viewer}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const listed = (await res.json()) as { result: { tools: unknown[] } };
    expect(listed.result.tools.length).toBeGreaterThan(10);
    const get = await fetch(endpoint, { headers: { accept: 'text/event-stream', authorization: `Bearer ${viewer}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
