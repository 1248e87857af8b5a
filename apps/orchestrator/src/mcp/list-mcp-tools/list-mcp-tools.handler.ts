import { Controller, Inject, Optional } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, listMcpTools, parseRunSource } from '@headspace/contracts';
import { APP_CONFIG } from '@headspace/platform';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { RUN_SOURCE_POLICY, type RunSourcePolicy } from '../../runs/run-source.policy';
import { EnabledPlugins } from '../../plugins/enabled-plugins.service';
import { SessionSandbox } from '../../sessions/sandbox/session-sandbox.service';
import { openMcpServers } from '../open-mcp-servers';

const run = promisify(execFile);
const CLONE_TIMEOUT_MS = 120_000;

/**
 * `hs.qry.orchestrator.list-mcp-tools`: connects the MCP servers a session on `source` would get
 * (with those of the team's enabled plugins),
 * in the team's sandbox with the source read-only, lists their tools and closes them again. A git
 * URL is cloned shallowly into a temporary directory for it.
 */
@Controller()
export class ListMcpToolsHandler {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_SOURCE_POLICY) private readonly sources: RunSourcePolicy,
    private readonly sandboxes: SessionSandbox,
    @Optional() private readonly plugins?: EnabledPlugins,
  ) {}

  @MessagePattern(listMcpTools)
  async handle(@Payload() input: z.output<typeof listMcpTools.request>): Promise<z.input<typeof listMcpTools.response>> {
    const source = await this.sources.check(input.source);
    const cloned = parseRunSource(source);
    const dir = 'error' in cloned || cloned.kind !== 'git-url' ? source : await this.clone(source);
    try {
      return await this.list(input.team, dir);
    } finally {
      if (dir !== source) await rm(dir, { recursive: true, force: true });
    }
  }

  private async list(team: string, dir: string): Promise<z.input<typeof listMcpTools.response>> {
    const sandbox = await this.sandboxes.forSession({ sessionId: `mcp-tools-${randomUUID()}`, team, persona: 'mcp-tools' }, dir);
    const pluginServers = (await this.plugins?.partsFor(team))?.mcpServers ?? [];
    const opened = await openMcpServers(this.config, dir, { ...(sandbox ? { sandbox: { ...sandbox, policy: { ...sandbox.policy, workspaceAccess: 'ro' } } } : {}), pluginServers });
    try {
      return {
        servers: opened.connections.servers.map((s) => ({
          name: s.name,
          scope: s.scope,
          type: s.type,
          status: s.status,
          ...(s.error ? { error: s.error } : {}),
          tools: s.tools.map((t) => ({ name: t.name, tool: t.mcpName, description: t.description, inputSchema: t.inputSchema })),
        })),
        problems: opened.problems,
        toolSearchThreshold: this.config.HS_MCP_TOOL_SEARCH_THRESHOLD,
      };
    } finally {
      await opened.connections.close();
    }
  }

  private async clone(url: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'hs-mcp-source-'));
    try {
      await run('git', ['clone', '--depth', '1', '--quiet', '--', url, dir], { timeout: CLONE_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_TERMINAL_PROMPT: '0' } });
      return dir;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw new HeadspaceError(ErrorCodes.runSourceNotFound, `Run source "${url}" could not be cloned: ${(error as Error).message.split('\n')[0]}`, { field: 'source' });
    }
  }
}
