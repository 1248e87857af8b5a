import { loadMcpConfig, McpConnections, type McpConfigProblem, type McpServerEntry, type Sandbox } from '@headspace/agent-runtime';
import type { AppConfig } from '../config';

export interface OpenedMcpServers {
  connections: McpConnections;
  problems: McpConfigProblem[];
}

type McpSettings = Pick<AppConfig, 'HS_AGENT_HOME' | 'HS_MCP_CONNECT_TIMEOUT_MS' | 'HS_MCP_TOOL_TIMEOUT_MS'>;

/**
 * The MCP servers of a project: `<project>/.mcp.json` over `$HS_AGENT_HOME/.mcp.json`, connected
 * (stdio servers inside `sandbox` when there is one). A bad file or entry and a server that does
 * not answer are reported in the result, never thrown: the session goes on without them.
 */
export async function openMcpServers(
  config: McpSettings,
  project: string,
  options: { sandbox?: Sandbox; extraEnv?: Record<string, string>; pluginServers?: readonly McpServerEntry[] } = {},
): Promise<OpenedMcpServers> {
  const { servers, problems } = await loadMcpConfig({ projectDir: project, homeDir: config.HS_AGENT_HOME });
  // Enabled plugins' servers (ADR 0045) join; a project or user server of the same name wins.
  const plugins = (options.pluginServers ?? []).filter((p) => !servers.some((s) => s.name === p.name));
  const connections = await McpConnections.open([...servers, ...plugins], {
    cwd: project,
    connectTimeoutMs: config.HS_MCP_CONNECT_TIMEOUT_MS,
    toolTimeoutMs: config.HS_MCP_TOOL_TIMEOUT_MS,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
  });
  return { connections, problems };
}

/** One line per problem and failed server, for the session's log. */
export function mcpWarnings(opened: OpenedMcpServers): string[] {
  return [
    ...opened.problems.map((p) => `MCP config ${p.source}: ${p.field}: ${p.message}${p.server ? ` (server ${p.server} left out)` : ''}`),
    ...opened.connections.servers.filter((s) => s.status === 'failed').map((s) => `MCP server ${s.name} (${s.type}, ${s.source}) is unavailable: ${s.error}`),
  ];
}
