import { Command } from 'commander';
import pc from 'picocolors';
import { sourceArgument } from '../agents/agent-commands';
import { printTable } from '../output';
import type { RunCommandKit } from '../run/run-commands';

interface McpToolsListing {
  servers: Array<{ name: string; scope: string; type: string; status: string; error?: string; tools: Array<{ name: string; description: string }> }>;
  problems: Array<{ source: string; field: string; message: string }>;
  toolSearchThreshold: number;
}

/** `headspace mcp-tools --source <dir>`: the MCP servers and tools agent sessions on a project would get. */
export function addMcpToolsCommand(program: Command, kit: RunCommandKit): void {
  const { io } = kit;
  program
    .command('mcp-tools')
    .description('MCP servers (.mcp.json of the project and $HS_AGENT_HOME) agents on a project get: status and mcp__<server>__<tool> tools')
    .requiredOption('--source <dir or git URL>', 'the project: a directory under the orchestrator’s HS_SOURCE_ROOTS, or a git URL')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (o: { source: string }, cmd: Command) => {
      const listing = await kit.client(cmd).get<McpToolsListing>(`/api/v1/teams/${encodeURIComponent(kit.teamOf(cmd))}/mcp-tools`, { source: sourceArgument(o.source) });
      kit.show(cmd, listing, () => {
        const rows = listing.servers.flatMap((s) =>
          s.tools.length > 0 ? s.tools.map((t) => ({ server: s, tool: t.name, description: t.description })) : [{ server: s, tool: '', description: s.error ?? '' }],
        );
        printTable(
          io,
          rows,
          [
            ['server', (r) => `${r.server.name} (${r.server.scope}, ${r.server.type})`],
            ['status', (r) => (r.server.status === 'connected' ? pc.green(r.server.status) : pc.red(r.server.status))],
            ['tool', (r) => r.tool],
            ['description', (r) => r.description.split('\n')[0]],
          ],
          'No MCP servers configured.',
        );
        for (const p of listing.problems) io.err.write(`${pc.red('✖')} ${p.source}: ${pc.bold(p.field)}: ${p.message}\n`);
      });
    });
}
