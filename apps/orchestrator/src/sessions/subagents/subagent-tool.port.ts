import { defineTool, HookEngine, hookDecisions, ok, runTool, ToolRegistry, toAnthropicTool, type AgentDefinition, type HookOutcome, type HookSession, type Sandbox } from '@headspace/agent-runtime';
import type { SubagentResult } from '@headspace/contracts';
import { z } from 'zod';
import type { ConversationBlock } from '../session-conversation';
import { SessionInterrupted } from '../run-session/agent-session.runner';
import type { ToolOutcome, ToolPort } from '../run-session/session-ports';
import { agentToolName } from './agent-tools';

/** Runs one subagent to its end for a lead's tool call (idempotent per tool use id: a resumed lead gets the same child). */
export type Delegate = (agent: AgentDefinition, task: { prompt: string; toolUseId: string }) => Promise<SubagentResult>;

export interface SubagentToolsOptions {
  /** The agents this lead may delegate to (already filtered by its permission policy). */
  agents: readonly AgentDefinition[];
  /** The lead's engine: PreToolUse / PostToolUse on the agent tool and SubagentStop when a child ends. */
  hooks: HookEngine;
  session: HookSession;
  delegate: Delegate;
  /** The lead's sandbox: the definition's command hooks run in it, as the lead's do. */
  sandbox?: Sandbox;
}

const agentInput = z.object({
  prompt: z.string().min(1).max(100_000).describe('The task for the agent, with everything it needs to know: it does not see this conversation.'),
  description: z.string().max(200).optional().describe('A few words on the task, for the log.'),
});

/**
 * Agents as tools (seed 003 Requirement 5): the lead's ToolPort plus one `agent__<name>` tool per
 * agent it may delegate to. A call goes through the lead's PreToolUse/PostToolUse hooks like any
 * tool, runs the agent as a child session in its own context (see SubagentSessions), and answers
 * with the child's SubagentResult as JSON; the lead's SubagentStop hooks and the definition's own
 * (frontmatter Stop hooks become SubagentStop) fire when the child ends, and their outcomes are
 * recorded with the tool call. Everything else goes to the inner port.
 */
export class SubagentToolPort implements ToolPort {
  private readonly byWireName = new Map<string, AgentDefinition>();
  private readonly registry: ToolRegistry;
  private agentDefs?: ConversationBlock[];
  private innerDefs?: ConversationBlock[];
  private defs?: ConversationBlock[];
  /** SubagentStop outcomes of the call in flight, by tool use id (the registry only passes results through). */
  private readonly stopOutcomes = new Map<string, HookOutcome[]>();
  private readonly interrupted = new Map<string, SessionInterrupted>();

  constructor(
    private readonly inner: ToolPort,
    private readonly options: SubagentToolsOptions,
  ) {
    for (const agent of options.agents) this.byWireName.set(agentToolName(agent.key), agent);
    this.registry = new ToolRegistry({
      tools: [...this.byWireName].map(([name, agent]) =>
        defineTool({
          name,
          description: `Delegate a task to the "${agent.key}" agent, which works in its own context with its own tools and returns an AgentResult (JSON). ${agent.description}`,
          schema: agentInput,
          execute: async (input, ctx) => {
            try {
              return ok(JSON.stringify(await this.runAgent(agent, input.prompt, ctx.toolUseId)), []);
            } catch (error) {
              // runTool turns a throw into a tool result; an interruption must instead stop the lead, to resume later.
              if (error instanceof SessionInterrupted) this.interrupted.set(ctx.toolUseId, error);
              throw error;
            }
          },
        }),
      ),
    });
  }

  /**
   * The agent tools (built once per session), then the inner port's. The inner list may grow (MCP
   * tools loaded through Tool Search are appended): putting the fixed agent tools first keeps every
   * earlier request's tools array a prefix of the next one (prompt cache), and the same array is
   * returned while the inner one is unchanged.
   */
  definitions(): ConversationBlock[] {
    const inner = this.inner.definitions();
    if (inner !== this.innerDefs || !this.defs) {
      this.agentDefs ??= this.registry.available().map((d) => toAnthropicTool(d) as unknown as ConversationBlock);
      this.innerDefs = inner;
      this.defs = [...this.agentDefs, ...inner];
    }
    return this.defs;
  }

  async run(call: { id: string; name: string; input: unknown }): Promise<ToolOutcome> {
    if (!this.byWireName.has(call.name)) return this.inner.run(call);
    const o = this.options;
    try {
      const out = await runTool({
        registry: this.registry,
        call: { id: call.id, name: call.name, input: call.input } as never,
        ctx: { workspaceRoot: o.session.cwd, agentId: o.session.agentId ?? o.session.sessionId, sessionId: o.session.sessionId },
        hooks: o.hooks,
        session: o.session,
      });
      const interrupted = this.interrupted.get(call.id);
      if (interrupted) throw interrupted;
      const result = out.result.isError ? undefined : (JSON.parse(out.result.content) as SubagentResult);
      const extra = out.additionalContext.length ? `\n\n${out.additionalContext.join('\n')}` : '';
      return {
        content: `${out.result.content}${extra}`,
        isError: out.result.isError,
        filesModified: result?.filesModified ?? [],
        hooks: hookDecisions([...out.outcomes, ...(this.stopOutcomes.get(call.id) ?? [])]),
      };
    } finally {
      this.stopOutcomes.delete(call.id);
      this.interrupted.delete(call.id);
    }
  }

  typeOf(name: string): 'function' | 'extension' {
    return this.byWireName.has(name) ? 'extension' : (this.inner.typeOf?.(name) ?? 'function');
  }

  onStop(lastText: string): Promise<string | undefined> {
    return this.inner.onStop(lastText);
  }

  private async runAgent(agent: AgentDefinition, prompt: string, toolUseId: string): Promise<SubagentResult> {
    const result = await this.options.delegate(agent, { prompt, toolUseId });
    const payload = { stop_hook_active: false, agent_type: agent.key, subagent_id: result.sessionId, summary: result.summary.slice(0, 20_000) };
    // The definition's own Stop hooks (as SubagentStop) run beside the lead's settings hooks.
    const own = new HookEngine(this.options.sandbox ? { sandbox: this.options.sandbox } : {});
    if (agent.hooks) own.addHooks('agent', agent.hooks, { source: agent.source, asSubagent: true });
    const fired = await Promise.all([this.options.hooks.run('SubagentStop', payload, this.options.session), own.run('SubagentStop', payload, this.options.session)]);
    this.stopOutcomes.set(toolUseId, fired.flatMap((f) => f.outcomes));
    return result;
  }
}
