import { z } from 'zod';
import type { Sandbox } from '../sandbox/sandbox-spawn';
import { runShell } from '../tools/bash-tool';
import type { AnyToolDefinition } from '../tools/types';
import type { AgentHookConfig, CommandHookConfig, PromptHookConfig } from './config';
import type { HookEventName, HookInput, ToolInputObject } from './events';

/** What one handler decided, before the engine combines all of them. */
export interface HookHandlerOutput {
  /** deny = block (PreToolUse deny, UserPromptSubmit block, Stop "keep working"); noop = no opinion. */
  verdict: 'allow' | 'deny' | 'ask' | 'noop';
  reason?: string;
  /** PreToolUse / PermissionRequest: replaces the tool input (transparent to the model). */
  updatedInput?: ToolInputObject;
  /** Text added to the model's context. */
  additionalContext?: string;
  /** `continue: false`: stop the agent altogether. */
  stopAgent?: { reason?: string };
  /** Shown to the operator, not the model. */
  systemMessage?: string;
}

/** A handler run, including the ways it can fail without deciding anything. */
export type HandlerRun =
  | ({ status: 'decided'; exitCode?: number } & HookHandlerOutput)
  | { status: 'error'; reason: string; exitCode?: number }
  | { status: 'timeout'; reason: string };

/** Prompt hooks (Req 3.2): a small model (Haiku) answers one question about the input. */
export interface PromptEvaluator {
  evaluate(request: { prompt: string; model?: string; event: HookEventName; signal: AbortSignal }): Promise<{ ok: boolean; reason?: string }>;
}

/** Agent hooks (Req 3.2): a sub-agent with read-only tools (Read, Grep, Glob) verifies something. */
export interface AgentEvaluator {
  evaluate(request: {
    prompt: string;
    model?: string;
    event: HookEventName;
    cwd: string;
    tools: readonly AnyToolDefinition[];
    signal: AbortSignal;
  }): Promise<{ ok: boolean; reason?: string }>;
}

const decisionWords = z.enum(['allow', 'approve', 'deny', 'block', 'ask']).optional();
/** The JSON a command hook may print on stdout (exit 0); unknown fields are ignored. */
export const commandHookStdoutSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  systemMessage: z.string().optional(),
  decision: decisionWords,
  reason: z.string().optional(),
  permissionDecision: decisionWords,
  permissionDecisionReason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      permissionDecision: decisionWords,
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      decision: z
        .looseObject({ behavior: z.enum(['allow', 'deny', 'ask']), updatedInput: z.record(z.string(), z.unknown()).optional(), message: z.string().optional() })
        .optional(),
    })
    .optional(),
});

const toVerdict = (word: string | undefined): HookHandlerOutput['verdict'] | undefined => {
  switch (word) {
    case 'allow':
    case 'approve':
      return 'allow';
    case 'deny':
    case 'block':
      return 'deny';
    case 'ask':
      return 'ask';
    default:
      return undefined;
  }
};

/** Events whose plain (non-JSON) stdout becomes context for the model. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set<HookEventName>(['UserPromptSubmit', 'SessionStart']);

/** Reads a command hook's stdout after exit 0: structured JSON decisions, or plain context. */
export function parseCommandStdout(stdout: string, event: HookEventName): HandlerRun {
  const text = stdout.trim();
  if (text.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (json !== undefined) {
      const parsed = commandHookStdoutSchema.safeParse(json);
      if (!parsed.success) return { status: 'error', exitCode: 0, reason: `hook printed JSON that is not a valid hook output: ${parsed.error.issues[0]?.message}` };
      const o = parsed.data;
      const h = o.hookSpecificOutput ?? {};
      const verdict = toVerdict(h.decision?.behavior) ?? toVerdict(h.permissionDecision) ?? toVerdict(o.permissionDecision) ?? toVerdict(o.decision) ?? 'noop';
      const out: HandlerRun = { status: 'decided', exitCode: 0, verdict };
      const reason = h.permissionDecisionReason ?? o.permissionDecisionReason ?? h.decision?.message ?? o.reason;
      if (reason !== undefined) out.reason = reason;
      const updatedInput = h.decision?.updatedInput ?? h.updatedInput ?? o.updatedInput;
      if (updatedInput !== undefined) out.updatedInput = updatedInput;
      const additionalContext = h.additionalContext ?? o.additionalContext;
      if (additionalContext !== undefined) out.additionalContext = additionalContext;
      if (o.continue === false) out.stopAgent = { reason: o.stopReason };
      if (o.systemMessage !== undefined) out.systemMessage = o.systemMessage;
      return out;
    }
  }
  if (text.length > 0 && STDOUT_IS_CONTEXT.has(event)) return { status: 'decided', exitCode: 0, verdict: 'noop', additionalContext: text };
  return { status: 'decided', exitCode: 0, verdict: 'noop' };
}

/**
 * Command hook (Req 3.2/3.4): `bash -c command` with the input JSON on stdin, in its own process
 * group (killed on timeout). Exit 0 = allow (+ optional JSON on stdout), exit 2 = deny/block with
 * stderr as the reason, any other code = a non-blocking error. With a sandbox the hook runs inside it
 * like the agent's own Bash: its input (file paths, commands) is the agent's, so is what it runs on.
 */
export async function runCommandHook(
  cfg: Pick<CommandHookConfig, 'command'>,
  input: HookInput,
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number; signal?: AbortSignal; sandbox?: Sandbox; sandboxEnv?: Record<string, string> },
): Promise<HandlerRun> {
  let run;
  try {
    // Into the sandbox: its own env, what settings declared for hooks, and the hook protocol's variables.
    const sandbox = opts.sandbox ? { ...opts.sandbox, policy: { ...opts.sandbox.policy, env: { ...opts.sandbox.policy.env, ...(opts.sandboxEnv ?? {}), ...hookOwnEnv(opts.env) } } } : undefined;
    run = await runShell(cfg.command, { cwd: opts.cwd, env: opts.env, timeoutMs: opts.timeoutMs, stdin: JSON.stringify(input), maxOutputChars: 200_000, signal: opts.signal, ...(sandbox ? { sandbox } : {}) });
  } catch (e) {
    return { status: 'error', reason: `could not start hook: ${(e as Error).message}` };
  }
  if (run.timedOut) return { status: 'timeout', reason: `hook timed out after ${opts.timeoutMs / 1000}s and was killed` };
  if (run.aborted) return { status: 'error', reason: 'hook aborted' };
  if (run.exitCode === 0) return parseCommandStdout(run.stdout, input.hook_event_name);
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) return { status: 'decided', exitCode: 2, verdict: 'deny', reason: stderr || 'Blocked by hook (exit code 2).' };
  const how = run.exitCode === null ? `killed by ${run.signal}` : `exit code ${run.exitCode}`;
  return { status: 'error', exitCode: run.exitCode ?? undefined, reason: `hook failed (${how})${stderr ? `: ${stderr}` : ''}` };
}

/** The hook protocol's own variables (HEADSPACE_SESSION_ID, CLAUDE_PROJECT_DIR, …) cross into the sandbox; nothing else does. */
function hookOwnEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => /^(HEADSPACE|CLAUDE|BRAINMASS)_/.test(k) && !/KEY|TOKEN|SECRET|PASSW/i.test(k)));
}

/** `$ARGUMENTS` in the prompt becomes the input JSON; without it, the JSON is appended. */
export function substituteArguments(prompt: string, input: HookInput): string {
  const json = JSON.stringify(input, null, 2);
  return prompt.includes('$ARGUMENTS') ? prompt.split('$ARGUMENTS').join(json) : `${prompt}\n\n${json}`;
}

/** Runs `fn` with an abort signal that fires after `timeoutMs`; a timeout is reported, not thrown. */
export async function withTimeout<T>(timeoutMs: number, fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<{ value: T } | { timedOut: true }> {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ timedOut: true }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('hook timeout'));
      resolve({ timedOut: true });
    }, timeoutMs);
  });
  try {
    return await Promise.race([fn(controller.signal).then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

function evaluatorVerdict(r: { ok: boolean; reason?: string }): HandlerRun {
  return r.ok
    ? { status: 'decided', verdict: 'allow', ...(r.reason ? { reason: r.reason } : {}) }
    : { status: 'decided', verdict: 'deny', reason: r.reason || 'Rejected by hook evaluation.' };
}

export async function runPromptHook(cfg: PromptHookConfig, input: HookInput, evaluator: PromptEvaluator | undefined, timeoutMs: number): Promise<HandlerRun> {
  if (!evaluator) return { status: 'error', reason: 'prompt hook skipped: no PromptEvaluator configured' };
  try {
    const r = await withTimeout(timeoutMs, (signal) => evaluator.evaluate({ prompt: substituteArguments(cfg.prompt, input), model: cfg.model, event: input.hook_event_name, signal }));
    if ('timedOut' in r) return { status: 'timeout', reason: `prompt hook timed out after ${timeoutMs / 1000}s` };
    return evaluatorVerdict(r.value);
  } catch (e) {
    return { status: 'error', reason: `prompt hook failed: ${(e as Error).message}` };
  }
}

export async function runAgentHook(
  cfg: AgentHookConfig,
  input: HookInput,
  evaluator: AgentEvaluator | undefined,
  tools: readonly AnyToolDefinition[],
  timeoutMs: number,
): Promise<HandlerRun> {
  if (!evaluator) return { status: 'error', reason: 'agent hook skipped: no AgentEvaluator configured' };
  try {
    const r = await withTimeout(timeoutMs, (signal) =>
      evaluator.evaluate({ prompt: substituteArguments(cfg.prompt, input), model: cfg.model, event: input.hook_event_name, cwd: input.cwd, tools, signal }),
    );
    if ('timedOut' in r) return { status: 'timeout', reason: `agent hook timed out after ${timeoutMs / 1000}s` };
    return evaluatorVerdict(r.value);
  } catch (e) {
    return { status: 'error', reason: `agent hook failed: ${(e as Error).message}` };
  }
}
