import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sandboxedArgv, type Sandbox } from '../sandbox/sandbox-spawn';
import type { McpServerEntry, McpStdioServerConfig } from './mcp-config';
import { mcpToolDefinition, type ListedMcpTool, type McpToolDefinition } from './mcp-tool';

export interface McpConnectOptions {
  /** The project directory: a stdio server's working directory. */
  cwd: string;
  /** Stdio servers run inside it (the session's sandbox, as Bash and command hooks do); none: as the orchestrator's user. */
  sandbox?: Sandbox;
  /** Set for stdio servers besides their configured `env` (HEADSPACE_SESSION_ID, …). */
  extraEnv?: Readonly<Record<string, string>>;
  /** Start + initialize + tools/list, per server. */
  connectTimeoutMs: number;
  /** One tools/call. */
  toolTimeoutMs: number;
}

export type McpServerState = 'connected' | 'failed';

export interface McpServerStatus {
  name: string;
  scope: McpServerEntry['scope'];
  source: string;
  type: McpServerEntry['config']['type'];
  status: McpServerState;
  /** Why it failed: the error and the last lines the server wrote to stderr. */
  error?: string;
  tools: McpToolDefinition[];
}

const CLIENT_INFO = { name: 'headspace', version: '1.0.0' };
const STDERR_TAIL = 2_000;

/**
 * A stdio server's process. In a sandbox it is bubblewrap running the command with the sandbox's
 * allow-listed environment plus the server's configured `env`; without one, the SDK passes only
 * its short list of harmless variables (PATH, HOME, USER, SHELL, TERM, LOGNAME) plus those, never
 * the orchestrator's environment.
 */
function stdioTransport(config: McpStdioServerConfig, options: McpConnectOptions): StdioClientTransport {
  const env = { ...options.extraEnv, ...config.env };
  if (!options.sandbox) return new StdioClientTransport({ command: config.command, args: config.args, env, cwd: options.cwd, stderr: 'pipe' });
  const sandbox: Sandbox = { ...options.sandbox, policy: { ...options.sandbox.policy, env: { ...options.sandbox.policy.env, ...env } } };
  const { file, args } = sandboxedArgv(sandbox, [config.command, ...config.args]);
  return new StdioClientTransport({ command: file, args, env: {}, cwd: '/', stderr: 'pipe' });
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function listAllTools(client: Client, timeoutMs: number): Promise<ListedMcpTool[]> {
  const tools: ListedMcpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown> })));
    cursor = page.nextCursor;
  } while (cursor && tools.length < 10_000);
  return tools;
}

/**
 * The MCP servers of one session (or one listing), connected through the official SDK client:
 * opened together at the start, each with a time limit; a server that fails is a status with its
 * reason, never a failed session. `close` ends every connection (and stdio server process).
 */
export class McpConnections {
  private constructor(
    readonly servers: readonly McpServerStatus[],
    private readonly clients: readonly Client[],
  ) {}

  static async open(entries: readonly McpServerEntry[], options: McpConnectOptions): Promise<McpConnections> {
    const opened = await Promise.all(entries.map((entry) => McpConnections.connect(entry, options)));
    return new McpConnections(
      opened.map((o) => o.status),
      opened.flatMap((o) => (o.client ? [o.client] : [])),
    );
  }

  private static async connect(entry: McpServerEntry, options: McpConnectOptions): Promise<{ status: McpServerStatus; client?: Client }> {
    const base = { name: entry.name, scope: entry.scope, source: entry.source, type: entry.config.type };
    const client = new Client(CLIENT_INFO);
    let stderr = '';
    let transport: Transport | undefined;
    try {
      if (entry.config.type === 'stdio') {
        const stdio = stdioTransport(entry.config, options);
        stdio.stderr?.on('data', (chunk: Buffer) => {
          stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
        });
        transport = stdio;
      } else {
        transport = new StreamableHTTPClientTransport(new URL(entry.config.url), { requestInit: { headers: entry.config.headers } });
      }
      const listed = await withTimeout(
        client.connect(transport, { timeout: options.connectTimeoutMs }).then(() => listAllTools(client, options.connectTimeoutMs)),
        options.connectTimeoutMs,
        `connecting to MCP server ${entry.name}`,
      );
      const tools = listed.map((t) => mcpToolDefinition(entry.name, t, client, options.toolTimeoutMs));
      return { status: { ...base, status: 'connected', tools }, client };
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport?.close().catch(() => undefined);
      const tail = stderr.trim() ? `; stderr: ${stderr.trim()}` : '';
      return { status: { ...base, status: 'failed', error: `${(error as Error).message}${tail}`.slice(0, 4_000), tools: [] } };
    }
  }

  /** Every tool of every connected server; a name two servers would share is kept once (the first). */
  tools(): McpToolDefinition[] {
    const seen = new Set<string>();
    return this.servers.flatMap((s) => s.tools).filter((t) => !seen.has(t.name) && seen.add(t.name));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.clients.map((c) => c.close()));
  }
}
