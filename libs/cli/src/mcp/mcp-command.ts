import { once } from 'node:events';
import type { Command } from 'commander';
import { createHeadspaceMcpServer } from '@headspace/mcp-server';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RunCommandKit } from '../run/run-commands';
import { cliHeadspaceApi } from './cli-headspace-api';

/**
 * `headspace mcp`: Headspace's MCP tools over stdio for a local MCP client (Claude Code, Claude
 * Desktop), calling the gateway with the CLI's endpoint and token. stdout carries only the protocol.
 */
export function addMcpCommand(program: Command, kit: Pick<RunCommandKit, 'client' | 'signal'>): void {
  program
    .command('mcp')
    .description('Serve Headspace as an MCP server over stdio (tasks, mailboxes, approvals, budgets, runs) with this CLI’s endpoint and token')
    .action(async (_o, cmd: Command) => {
      // Resolved first: no endpoint configured is a usage error on stderr, before any protocol.
      const api = cliHeadspaceApi(kit.client(cmd));
      const server = createHeadspaceMcpServer(api, { version: process.env.HEADSPACE_VERSION });
      await server.connect(new StdioServerTransport());
      // Served until the client closes our stdin (or Ctrl-C / SIGTERM).
      const stdinClosed = once(process.stdin, 'end');
      const aborted = once(kit.signal, 'abort');
      await Promise.race([stdinClosed, aborted]);
      await server.close();
    });
}
