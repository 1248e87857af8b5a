import { createTeamTools, hookDecisions, runTool, workspaceTools, ToolRegistry, type HookEngine, type LockChecker, type Sandbox, type TeamToolsPort, type ToolPermissionPolicy } from '@headspace/agent-runtime';
import { toAnthropicTool } from '@headspace/agent-runtime';
import type { ConversationBlock } from '../session-conversation';
import type { ToolOutcome, ToolPort } from '../run-session/session-ports';

export interface WorkspaceToolsOptions {
  workspace: string;
  agentId: string;
  team: string;
  sessionId: string;
  policy: ToolPermissionPolicy;
  hooks: HookEngine;
  teamTools?: TeamToolsPort;
  lockChecker?: LockChecker;
  signal?: AbortSignal;
  /** Bash runs inside it (the team's sandbox settings); none: unsandboxed (HS_SANDBOX=off, mode off). */
  sandbox?: Sandbox;
}

/**
 * The session's tools on its workspace: Read, Write, Edit, MultiEdit, Glob, Grep, Bash and the team
 * tools, each call through the hook engine (PreToolUse deny/modify, PostToolUse) and the persona's
 * permission policy (allowlist, owns, workspace bounds). A refused call is a result the model reads.
 */
export class WorkspaceToolPort implements ToolPort {
  private readonly registry: ToolRegistry;
  /** The tools array is the same on every turn (and must be, for the prompt cache): built once. */
  private defs?: ConversationBlock[];
  private readonly teamToolNames: ReadonlySet<string>;

  constructor(private readonly options: WorkspaceToolsOptions) {
    const teamTools = options.teamTools ? createTeamTools(options.teamTools) : [];
    this.teamToolNames = new Set(teamTools.map((t) => t.name));
    this.registry = new ToolRegistry({
      tools: [...workspaceTools, ...teamTools],
      policy: options.policy,
      ...(options.lockChecker ? { lockChecker: options.lockChecker } : {}),
    });
  }

  definitions(): ConversationBlock[] {
    this.defs ??= this.registry.available().map((d) => toAnthropicTool(d) as unknown as ConversationBlock);
    return this.defs;
  }

  async run(call: { id: string; name: string; input: unknown }): Promise<ToolOutcome> {
    const o = this.options;
    const out = await runTool({
      registry: this.registry,
      call: { id: call.id, name: call.name, input: call.input } as never,
      ctx: { workspaceRoot: o.workspace, agentId: o.agentId, sessionId: o.sessionId, teamId: o.team, ...(o.signal ? { signal: o.signal } : {}), ...(o.sandbox ? { sandbox: o.sandbox } : {}) },
      hooks: o.hooks,
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
    return this.teamToolNames.has(name) ? 'extension' : 'function';
  }

  async onStop(lastText: string): Promise<string | undefined> {
    const o = this.options;
    const result = await o.hooks.run('Stop', { stop_hook_active: false, last_assistant_message: lastText.slice(0, 20_000) }, { sessionId: o.sessionId, cwd: o.workspace, agentId: o.agentId });
    return result.decision === 'deny' ? (result.outcomes.find((x) => x.result === 'deny')?.reason ?? 'A Stop hook asked you to continue.') : undefined;
  }
}
