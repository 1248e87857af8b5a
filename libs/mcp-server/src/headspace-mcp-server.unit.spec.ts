import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiMethod, ApiReply, HeadspaceApi } from './headspace-api';
import { createHeadspaceMcpServer } from './headspace-mcp-server';

interface Recorded {
  method: ApiMethod;
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}

/** Answers every call with `reply` and records it: the REST side is the gateway's, tested there. */
function recordingApi(reply: (call: Recorded) => ApiReply | Promise<ApiReply>) {
  const calls: Recorded[] = [];
  const api: HeadspaceApi = {
    call: async (method, path, body, options) => {
      const call = { method, path, ...(body !== undefined ? { body } : {}), ...(options?.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) };
      calls.push(call);
      return reply(call);
    },
  };
  return { api, calls };
}

let client: Client | undefined;
afterEach(async () => client?.close());

async function connect(api: HeadspaceApi) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createHeadspaceMcpServer(api).connect(serverSide);
  client = new Client({ name: 'spec', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0].text;

describe('the Headspace MCP server', () => {
  it('lists the team tools, reads marked read-only', async () => {
    const { tools } = await (await connect(recordingApi(() => ({ status: 200, json: {} })).api)).listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_teams', 'get_team', 'list_tasks', 'create_task', 'claim_task', 'complete_task', 'release_task', 'send_message', 'read_mailbox', 'take_unread_messages', 'list_approvals', 'answer_approval', 'get_budget', 'get_spend', 'start_run', 'get_run', 'list_runs']),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_tasks')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('create_task')?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('create_task')?.inputSchema.required).toEqual(expect.arrayContaining(['team', 'subject']));
  });

  it('turns a tool call into its REST call, path segments encoded, query from the filters', async () => {
    const { api, calls } = recordingApi(() => ({ status: 201, json: { taskId: 'a/b' } }));
    const c = await connect(api);
    await c.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'Write the docs', dependsOn: ['design'] } });
    await c.callTool({ name: 'claim_task', arguments: { team: 'alpha', taskId: '../../tokens', owner: 'con' } });
    await c.callTool({ name: 'list_tasks', arguments: { team: 'alpha', status: 'pending', blocked: false } });
    await c.callTool({ name: 'send_message', arguments: { team: 'alpha', from: 'con', to: 'al', summary: 'the design is done now', body: 'see docs' } });
    expect(calls).toEqual([
      { method: 'POST', path: '/api/v1/teams/alpha/tasks', body: { subject: 'Write the docs', dependsOn: ['design'] } },
      { method: 'POST', path: '/api/v1/teams/alpha/tasks/..%2F..%2Ftokens/claim', body: { owner: 'con' } },
      { method: 'GET', path: '/api/v1/teams/alpha/tasks?status=pending&blocked=false' },
      { method: 'POST', path: '/api/v1/teams/alpha/messages', body: { type: 'message', from: 'con', to: 'al', summary: 'the design is done now', body: 'see docs' } },
    ]);
  });

  it('gives every write tool, and no read, an optional idempotency_key that goes as the Idempotency-Key header, not in the body', async () => {
    const { api, calls } = recordingApi(() => ({ status: 201, json: { taskId: 't1' } }));
    const c = await connect(api);
    const { tools } = await c.listTools();
    for (const tool of tools) {
      const properties = tool.inputSchema.properties ?? {};
      if (tool.annotations?.readOnlyHint) expect(properties, tool.name).not.toHaveProperty('idempotency_key');
      else {
        expect(properties, tool.name).toHaveProperty('idempotency_key');
        expect(JSON.stringify(properties.idempotency_key)).toContain('send the same key when retrying');
        expect(tool.inputSchema.required ?? [], tool.name).not.toContain('idempotency_key');
      }
    }
    await c.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'Once', idempotency_key: 'retry-1' } });
    await c.callTool({ name: 'claim_task', arguments: { team: 'alpha', taskId: 't1', owner: 'con', idempotency_key: 'retry-2' } });
    await c.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'Keyless' } });
    expect(calls).toEqual([
      { method: 'POST', path: '/api/v1/teams/alpha/tasks', body: { subject: 'Once' }, idempotencyKey: 'retry-1' },
      { method: 'POST', path: '/api/v1/teams/alpha/tasks/t1/claim', body: { owner: 'con' }, idempotencyKey: 'retry-2' },
      { method: 'POST', path: '/api/v1/teams/alpha/tasks', body: { subject: 'Keyless' } },
    ]);
  });

  it('refuses an idempotency_key REST could not take, naming it, without calling REST', async () => {
    const { api, calls } = recordingApi(() => ({ status: 201, json: {} }));
    const c = await connect(api);
    const result = await c.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'x', idempotency_key: 'k'.repeat(201) } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('idempotency_key');
    expect(calls).toEqual([]);
  });

  it('returns a REST refusal as an error result, not a protocol error', async () => {
    const c = await connect(recordingApi(() => ({ status: 403, json: { code: 'AUTH.FORBIDDEN', detail: 'This operation needs the operator role; the token has viewer' } })).api);
    const result = await c.callTool({ name: 'create_task', arguments: { team: 'alpha', subject: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('403 AUTH.FORBIDDEN');
  });

  it('returns an unreachable API as an error result', async () => {
    const c = await connect(recordingApi(() => Promise.reject(new Error('connect ECONNREFUSED'))).api);
    const result = await c.callTool({ name: 'list_teams', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('could not be reached: connect ECONNREFUSED');
  });
});
