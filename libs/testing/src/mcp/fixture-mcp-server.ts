import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** One `tools/call` the fixture served. */
export interface FixtureMcpCall {
  tool: string;
  arguments: Record<string, unknown>;
}

export interface FixtureMcpOptions {
  /** Called for every tool call, before it answers (a spec sees whether the server ran at all). */
  record: (call: FixtureMcpCall) => void;
  /** Adds `widget_0` … `widget_<n-1>` (for Tool Search); the default is none. */
  extraTools?: number;
}

/**
 * An MCP server written with the official SDK: `echo` (text back), `add` (a sum), `fail` (an
 * `isError` result) and optional numbered `widget_<i>` tools, each recording its call.
 */
export function createFixtureMcpServer(options: FixtureMcpOptions): McpServer {
  const server = new McpServer({ name: 'headspace-fixture', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the given text back.', inputSchema: { text: z.string() } }, async ({ text }) => {
    options.record({ tool: 'echo', arguments: { text } });
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  });
  server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
    options.record({ tool: 'add', arguments: { a, b } });
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  server.registerTool('fail', { description: 'Always answers with an error result.', inputSchema: { why: z.string().optional() } }, async ({ why }) => {
    options.record({ tool: 'fail', arguments: why === undefined ? {} : { why } });
    return { content: [{ type: 'text', text: `failed: ${why ?? 'as asked'}` }], isError: true };
  });
  for (let i = 0; i < (options.extraTools ?? 0); i++) {
    const name = `widget_${i}`;
    server.registerTool(name, { description: `Polishes widget number ${i} (${i % 2 === 0 ? 'brass' : 'steel'}).`, inputSchema: { count: z.number().int() } }, async ({ count }) => {
      options.record({ tool: name, arguments: { count } });
      return { content: [{ type: 'text', text: `polished ${count} of widget ${i}` }] };
    });
  }
  return server;
}

export interface FixtureMcpHttp {
  /** The streamable-HTTP endpoint (`…/mcp`). */
  url: string;
  calls: FixtureMcpCall[];
  /** The request headers of every HTTP request (to see configured headers arrive). */
  headers: Array<Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

/** The fixture over streamable HTTP on 127.0.0.1, stateless (a server per request, as the SDK's example). */
export async function startFixtureMcpHttp(options: Omit<FixtureMcpOptions, 'record'> = {}): Promise<FixtureMcpHttp> {
  const calls: FixtureMcpCall[] = [];
  const headers: FixtureMcpHttp['headers'] = [];
  const http = createServer(async (req, res) => {
    headers.push(req.headers);
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = createFixtureMcpServer({ ...options, record: (c) => calls.push(c) });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
