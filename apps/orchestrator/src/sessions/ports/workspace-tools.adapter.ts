import {
  createTeamTools,
  DEFAULT_TOOL_SEARCH_THRESHOLD,
  hookDecisions,
  McpToolset,
  runTool,
  toAnthropicTool,
  TOOL_SEARCH,
  workspaceTools,
  ToolRegistry,
  type HookEngine,
  type HookSession,
  type LockChecker,
  type McpToolDefinition,
  type Sandbox,
  type TeamToolsPort,
  type ToolPermissionPolicy,
} from '@headspace/agent-runtime';
import type { ConversationBlock } from '../session-conversation';
import type { ToolOutcome, ToolPort } from '../run-session/session-ports';

export interface WorkspaceToolsOptions {
  workspace: string;
  agentId: string;
  team: string;
  sessionId: string;
  policy: ToolPermissionPolicy;
  hooks: HookEngine;
  /** The common fields of the session's hook inputs (model, persona); default: id, workspace and agent. */
  hookSession?: HookSession;
  teamTools?: TeamToolsPort;
  lockChecker?: LockChecker;
  signal?: AbortSignal;
  /** Bash runs inside it (the team's sandbox settings); none: unsandboxed (HS_SANDBOX=off, mode off). */
  sandbox?: Sandbox;
  /** The tools of the session's connected MCP servers (`mcp__<server>__<tool>`). */
  mcpTools?: readonly McpToolDefinition[];
  /** Above this many MCP tools the model gets ToolSearch and loads them on demand. */
  toolSearchThreshold?: number;
}

/** An MCP tool's definition for the API: the server's JSON Schema as it is. */
function mcpApiTool(def: McpToolDefinition): ConversationBlock {
  const { $schema: _ignored, ...schema } = def.inputSchema;
  return { name: def.name, description: def.description, input_schema: { ...schema, type: 'object' } } as unknown as ConversationBlock;
}

/**
 * The session's tools on its workspace: Read, Write, Edit, MultiEdit, Glob, Grep, Bash, the team
 * tools and its MCP servers' tools (behind ToolSearch when there are many), each call through the hook engine (PreToolUse deny/modify, PostToolUse) and the persona's
 * permission policy (allowlist, owns, workspace bounds). A refused call is a result the model reads.
 */
export class WorkspaceToolPort implements ToolPort {
  private readonly registry: ToolRegistry;
  /**
   * The tools array is the same on every turn (and must be, for the prompt cache): built once, and
   * only grown at its end when ToolSearch loads deferred MCP tools.
   */
  private defs?: ConversationBlock[];
  private defsMcpCount = -1;
  private readonly extensionNames: ReadonlySet<string>;
  private readonly mcpNames: ReadonlySet<string>;
  /** The MCP tools this persona may use; Tool Search counts and finds only these. */
  private readonly mcp: McpToolset;
  /** The model is working on because a Stop hook sent it back (Stop's `stop_hook_active`). */
  private stopHookActive = false;

  constructor(private readonly options: WorkspaceToolsOptions) {
    const teamTools = options.teamTools ? createTeamTools(options.teamTools) : [];
    const mcpTools = options.mcpTools ?? [];
    const usable = new ToolRegistry({ tools: mcpTools, policy: options.policy }).available() as McpToolDefinition[];
    this.mcp = new McpToolset(usable, options.toolSearchThreshold ?? DEFAULT_TOOL_SEARCH_THRESHOLD);
    this.mcpNames = new Set(mcpTools.map((t) => t.name));
    this.extensionNames = new Set([...teamTools, ...mcpTools, ...this.mcp.extraTools].map((t) => t.name));
    // Every MCP tool is registered, so calling one the persona may not use is refused by the rules, not "unknown".
    this.registry = new ToolRegistry({
      tools: [...workspaceTools, ...teamTools, ...mcpTools, ...this.mcp.extraTools],
      policy: options.policy,
      ...(options.lockChecker ? { lockChecker: options.lockChecker } : {}),
    });
  }

  definitions(): ConversationBlock[] {
    const offered = this.mcp.offered();
    if (this.defs && this.defsMcpCount === offered.length) return this.defs;
    const base = this.registry.available().filter((d) => !this.mcpNames.has(d.name));
    this.defs = [...base.map((d) => toAnthropicTool(d) as unknown as ConversationBlock), ...offered.map(mcpApiTool)];
    this.defsMcpCount = offered.length;
    return this.defs;
  }

  async run(call: { id: string; name: string; input: unknown }): Promise<ToolOutcome> {
    const o = this.options;
    if (this.mcp.has(call.name) && !this.mcp.isOffered(call.name)) {
      return { content: `Tool ${call.name} is not loaded yet: find it with ${TOOL_SEARCH} first.`, isError: true, filesModified: [], hooks: [] };
    }
    const out = await runTool({
      registry: this.registry,
      call: { id: call.id, name: call.name, input: call.input } as never,
      ctx: { workspaceRoot: o.workspace, agentId: o.agentId, sessionId: o.sessionId, teamId: o.team, ...(o.signal ? { signal: o.signal } : {}), ...(o.sandbox ? { sandbox: o.sandbox } : {}) },
      hooks: o.hooks,
      session: this.hookSession,
    });
    const extra = out.additionalContext.length ? `\n\n${out.additionalContext.join('\n')}` : '';
    return {
      content: `${out.result.content}${extra}`,
      isError: out.result.isError,
      filesModified: out.result.filesModified ?? [],
      hooks: hookDecisions(out.outcomes),
    };
  }

  typeOf(name: string): 'function' | 'extension' {
    return this.extensionNames.has(name) ? 'extension' : 'function';
  }

  private get hookSession(): HookSession {
    const o = this.options;
    return o.hookSession ?? { sessionId: o.sessionId, cwd: o.workspace, agentId: o.agentId };
  }

  async onStop(lastText: string): Promise<string | undefined> {
    const result = await this.options.hooks.run('Stop', { stop_hook_active: this.stopHookActive, last_assistant_message: lastText.slice(0, 20_000) }, this.hookSession);
    this.stopHookActive = result.decision === 'deny';
    return result.decision === 'deny' ? (result.outcomes.find((x) => x.result === 'deny')?.reason ?? 'A Stop hook asked you to continue.') : undefined;
  }
}
