import type Anthropic from '@anthropic-ai/sdk';
import { ErrorCodes } from '@headspace/contracts';
import type { ToolRegistry } from '../tools/registry';
import { fail, toToolResultBlock, type ToolContext, type ToolResult, type ToolUseCall } from '../tools/types';
import type { HookEngine, HookOutcome, HookSession } from './engine';
import type { ToolInputObject } from './events';

export interface PermissionQuestion {
  toolName: string;
  input: unknown;
  toolUseId: string;
  reason?: string;
}

export interface RunToolOptions {
  registry: ToolRegistry;
  call: ToolUseCall;
  ctx: Omit<ToolContext, 'toolUseId'>;
  hooks?: HookEngine;
  /** Session fields for hook inputs; default: id `ctx.sessionId`, cwd = the workspace. */
  session?: HookSession;
  /**
   * Asked when a hook answers "ask" and no PermissionRequest hook decides (e.g. the operator via
   * request_approval). Without it, "ask" means refused.
   */
  askPermission?: (question: PermissionQuestion) => Promise<'allow' | 'deny'>;
}

export type RunToolStage = 'replayed' | 'invalid' | 'denied-by-hook' | 'refused' | 'executed';

export interface RunToolResult {
  result: ToolResult;
  /** The `tool_result` block to send back to the model. */
  block: Anthropic.ToolResultBlockParam;
  stage: RunToolStage;
  /** The input actually executed (after hook changes), when it got that far. */
  input?: unknown;
  /** Every hook decision of this call, in order: record them (`hook decision` events, spans). */
  outcomes: HookOutcome[];
  /** Context that hooks added for the model. */
  additionalContext: string[];
  /** A hook asked to stop the agent altogether. */
  stopAgent?: { reason?: string };
}

const asObject = (v: unknown): ToolInputObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as ToolInputObject) : { value: v });

/**
 * One tool call, end to end: journal replay → input parsing → PreToolUse hooks (deny, ask →
 * PermissionRequest, updatedInput) → permission rules → execute → PostToolUse or
 * PostToolUseFailure → journal. Never throws for anything the model did; every refusal is a
 * tool result the model reads.
 */
export async function runTool(opts: RunToolOptions): Promise<RunToolResult> {
  const { registry, call, hooks } = opts;
  const ctx: ToolContext = { ...opts.ctx, toolUseId: call.id };
  const session: HookSession = opts.session ?? { sessionId: ctx.sessionId ?? ctx.agentId, cwd: ctx.workspaceRoot, agentId: ctx.agentId };
  const outcomes: HookOutcome[] = [];
  const additionalContext: string[] = [];
  let stopAgent: { reason?: string } | undefined;

  const finish = async (result: ToolResult, stage: RunToolStage, input?: unknown): Promise<RunToolResult> => {
    if (stage !== 'replayed') await registry.record(call.id, result);
    const out: RunToolResult = { result, block: toToolResultBlock(call.id, result), stage, outcomes, additionalContext };
    if (input !== undefined) out.input = input;
    if (stopAgent) out.stopAgent = stopAgent;
    return out;
  };

  const replayed = await registry.replay(call.id);
  if (replayed) return finish(replayed, 'replayed');

  let prepared = registry.prepare(call.name, call.input);
  if (!prepared.ok) return finish(prepared.result, 'invalid');
  let input = prepared.input;

  if (hooks) {
    const pre = await hooks.run('PreToolUse', { tool_name: call.name, tool_input: asObject(input), tool_use_id: call.id }, session);
    outcomes.push(...pre.outcomes);
    additionalContext.push(...pre.additionalContext);
    stopAgent ??= pre.stopAgent;
    if (pre.blocked) return finish(fail(ErrorCodes.toolDeniedByHook, pre.reason ?? `Tool call ${call.name} was denied by a hook.`), 'denied-by-hook', input);
    if (pre.updatedInput) {
      prepared = registry.prepare(call.name, pre.updatedInput);
      if (!prepared.ok) return finish(fail(ErrorCodes.toolInputInvalid, `A hook changed the input into something invalid: ${prepared.result.content}`), 'invalid');
      input = prepared.input;
    }
    if (pre.decision === 'ask') {
      const perm = await hooks.run('PermissionRequest', { tool_name: call.name, tool_input: asObject(input), tool_use_id: call.id, ...(pre.reason ? { reason: pre.reason } : {}) }, session);
      outcomes.push(...perm.outcomes);
      additionalContext.push(...perm.additionalContext);
      let answer: 'allow' | 'deny' | undefined = perm.decision === 'allow' ? 'allow' : perm.decision === 'deny' ? 'deny' : undefined;
      if (answer === 'allow' && perm.updatedInput) {
        prepared = registry.prepare(call.name, perm.updatedInput);
        if (!prepared.ok) return finish(fail(ErrorCodes.toolInputInvalid, `A hook changed the input into something invalid: ${prepared.result.content}`), 'invalid');
        input = prepared.input;
      }
      if (answer === undefined) {
        // Nobody decided: a person is asked (Notification `permission_prompt`, as Claude Code sends it).
        const note = await hooks.run('Notification', { message: `Headspace needs your permission to use ${call.name}`, notification_type: 'permission_prompt', title: 'Permission needed' }, session);
        outcomes.push(...note.outcomes);
        if (opts.askPermission) answer = await opts.askPermission({ toolName: call.name, input, toolUseId: call.id, reason: pre.reason });
      }
      if (answer !== 'allow') {
        const why = perm.decision === 'deny' ? perm.reason : pre.reason;
        const code = answer === 'deny' ? ErrorCodes.toolDeniedByHook : ErrorCodes.toolApprovalRequired;
        return finish(fail(code, `Tool call ${call.name} needs permission and was not granted${why ? `: ${why}` : '.'}`), 'denied-by-hook', input);
      }
    }
  }
  const def = prepared.def;
  const refusal = await registry.checkPermission(def, input, ctx);
  if (refusal) return finish(refusal, 'refused', input);

  let result = await registry.execute(def, input, ctx);

  if (hooks) {
    const post = result.isError
      ? await hooks.run('PostToolUseFailure', { tool_name: call.name, tool_input: asObject(input), tool_use_id: call.id, error: result.content, ...(result.code ? { error_code: result.code } : {}) }, session)
      : await hooks.run(
          'PostToolUse',
          { tool_name: call.name, tool_input: asObject(input), tool_use_id: call.id, tool_response: { content: result.content, is_error: false, ...(result.filesModified ? { files_modified: result.filesModified } : {}) } },
          session,
        );
    outcomes.push(...post.outcomes);
    additionalContext.push(...post.additionalContext);
    stopAgent ??= post.stopAgent;
    if (post.feedback.length > 0) result = { ...result, content: `${result.content}\n\n<hook-feedback>\n${post.feedback.join('\n')}\n</hook-feedback>` };
  }
  return finish(result, 'executed', input);
}
