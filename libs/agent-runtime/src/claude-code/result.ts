import { z } from 'zod';
import { agentResultSchema, ErrorCodes, reflectionSchema, type AgentExitReason, type AgentResult, type Reflection } from '@headspace/contracts';
import { parseReflection } from '../reflection/parse-reflection';
import { isBlockingDenial, type ClaudeDenial } from './policy';

const modelUsageSchema = z.looseObject({
  inputTokens: z.number().nonnegative().default(0),
  outputTokens: z.number().nonnegative().default(0),
  cacheReadInputTokens: z.number().nonnegative().default(0),
  cacheCreationInputTokens: z.number().nonnegative().default(0),
  costUSD: z.number().nonnegative().optional(),
});

/**
 * A `result` object of `claude -p` (the single JSON of `--output-format json`, the `result` line of
 * `stream-json`): result text, subtype, is_error, num_turns, session_id, total_cost_usd, usage (in
 * 2.1.x the tokens since the previous result only), `modelUsage` (cumulative per model, subagents
 * included), `permission_denials`, `origin` (set on the extra result a finished background task
 * triggers) and — with `--json-schema` — `structured_output`. Unknown keys are kept.
 */
export const claudeJsonResultSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().optional(),
  num_turns: z.number().int().nonnegative().default(0),
  session_id: z.string().optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  duration_ms: z.number().optional(),
  usage: z
    .looseObject({
      input_tokens: z.number().int().nonnegative().default(0),
      output_tokens: z.number().int().nonnegative().default(0),
      cache_read_input_tokens: z.number().int().nonnegative().nullish(),
      cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
    })
    .optional(),
  structured_output: z.unknown().optional(),
  modelUsage: z.record(z.string(), modelUsageSchema).optional().catch(undefined),
  permission_denials: z
    .array(z.looseObject({ tool_name: z.string(), tool_use_id: z.string().optional(), tool_input: z.record(z.string(), z.unknown()).optional() }))
    .optional()
    .catch(undefined),
  origin: z.unknown().optional(),
  parent_tool_use_id: z.string().nullish(),
});
export type ClaudeJsonResult = z.output<typeof claudeJsonResultSchema>;

/** Parse one `result` object; undefined when it is not one. */
export function parseClaudeResult(value: unknown): ClaudeJsonResult | undefined {
  const parsed = claudeJsonResultSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The result of the task itself among several: not one a background task's notification triggered
 * (`origin`), not a subagent's, in the session's id; the first such. Later results come from work
 * the CLI resumed after the answer (e.g. a background subagent finishing) and never replace it.
 */
export function pickMainResult(results: readonly ClaudeJsonResult[], sessionId?: string): ClaudeJsonResult | undefined {
  const main = results.find((r) => r.origin === undefined && !r.parent_tool_use_id && (sessionId === undefined || r.session_id === undefined || r.session_id === sessionId));
  return main ?? results[0];
}

/** Tokens of the whole process: `modelUsage` summed over models (cumulative, subagents included). */
export function modelUsageTokens(result: ClaudeJsonResult): AgentResult['tokensConsumed'] | undefined {
  if (!result.modelUsage || Object.keys(result.modelUsage).length === 0) return undefined;
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const m of Object.values(result.modelUsage)) {
    sum.input += m.inputTokens;
    sum.output += m.outputTokens;
    sum.cacheRead += m.cacheReadInputTokens;
    sum.cacheWrite += m.cacheCreationInputTokens;
  }
  return { input: Math.round(sum.input), output: Math.round(sum.output), cacheRead: Math.round(sum.cacheRead), cacheWrite: Math.round(sum.cacheWrite) };
}

export function resultTokens(result: ClaudeJsonResult): AgentResult['tokensConsumed'] {
  const fromModels = modelUsageTokens(result);
  if (fromModels) return fromModels;
  const u = result.usage;
  return { input: u?.input_tokens ?? 0, output: u?.output_tokens ?? 0, cacheRead: u?.cache_read_input_tokens ?? 0, cacheWrite: u?.cache_creation_input_tokens ?? 0 };
}

export function permissionDenials(result: ClaudeJsonResult): ClaudeDenial[] {
  return (result.permission_denials ?? []).map((d) => ({
    source: 'permissions' as const,
    toolName: d.tool_name,
    toolUseId: d.tool_use_id,
    toolInput: d.tool_input,
    blocking: isBlockingDenial(d.tool_name),
  }));
}

/** Find the result object in stdout (the whole text, or its last JSON line). */
export function parseClaudeStdout(stdout: string): ClaudeJsonResult | undefined {
  const tries = [stdout.trim(), ...stdout.trim().split('\n').reverse()];
  for (const t of tries) {
    if (!t.startsWith('{')) continue;
    try {
      const parsed = claudeJsonResultSchema.safeParse(JSON.parse(t));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}

const SUBTYPE_EXIT: Record<string, AgentExitReason> = {
  success: 'completed',
  error_max_turns: 'max_turns',
  error_max_budget_usd: 'budget_stopped',
  error_during_execution: 'error',
};

export function exitReasonFor(result: ClaudeJsonResult): AgentExitReason {
  if (result.subtype === 'success') return result.is_error ? 'error' : 'completed';
  return SUBTYPE_EXIT[result.subtype] ?? 'error';
}

/** The reflection, from `structured_output` or else from the result text. */
export function reflectionOf(result: ClaudeJsonResult): Reflection | undefined {
  if (result.structured_output !== undefined) {
    const parsed = reflectionSchema.safeParse(result.structured_output);
    if (parsed.success) return parsed.data;
  }
  if (result.result) {
    const parsed = parseReflection(result.result);
    if (parsed.ok) return parsed.reflection;
  }
  return undefined;
}

/** What the stream adds to a result; without it only the result object is read. */
export interface ClaudeRunContext {
  /** Tokens of the whole run (see resultTokens), default: the result's own. */
  tokens?: AgentResult['tokensConsumed'];
  turns?: number;
  costUsd?: number;
  toolsUsed?: string[];
  /** Stopped tool calls; a blocking one means the task was not done as asked. */
  denials?: readonly ClaudeDenial[];
  /** Files the run changed (the runner reads git); default: the reflection's files_changed. */
  filesModified?: string[];
  sessionId?: string;
}

function failureOf(result: ClaudeJsonResult, exitReason: AgentExitReason, reflection: Reflection | undefined, denials: readonly ClaudeDenial[]): AgentResult['error'] {
  const text = result.result ? `: ${result.result.slice(0, 2_000)}` : '';
  if (exitReason !== 'completed') {
    const what = result.subtype === 'success' ? 'claude reported an error' : `claude ended with ${result.subtype}`;
    return { code: ErrorCodes.claudeCodeFailed, message: `${what}${text}` };
  }
  const blocking = denials.filter((d) => d.blocking);
  if (blocking.length > 0) {
    const list = blocking.slice(0, 10).map((d) => `${d.toolName}${d.reason ? ` (${d.reason})` : ''}`).join('; ');
    return { code: ErrorCodes.claudeCodeToolsDenied, message: `${blocking.length} tool call(s) were denied: ${list}`.slice(0, 5_000) };
  }
  if (!reflection) return { code: ErrorCodes.claudeCodeNoReflection, message: `claude finished without the reflection the spawn protocol asks for${text}`.slice(0, 5_000) };
  return undefined;
}

/**
 * Map the CLI's result to the seed's AgentResult. `completed` only with a reflection and no
 * blocking denial; otherwise exitReason `error` with a code saying which.
 */
export function toAgentResult(result: ClaudeJsonResult, ctx: ClaudeRunContext = {}): AgentResult {
  const reflection = reflectionOf(result);
  const denials = ctx.denials ?? permissionDenials(result);
  const error = failureOf(result, exitReasonFor(result), reflection, denials);
  const exitReason = error && exitReasonFor(result) === 'completed' ? 'error' : exitReasonFor(result);
  return agentResultSchema.parse({
    summary: (reflection?.task_result.summary ?? result.result ?? '').slice(0, 20_000),
    turnsUsed: ctx.turns ?? result.num_turns,
    tokensConsumed: ctx.tokens ?? resultTokens(result),
    toolsUsed: ctx.toolsUsed ?? [],
    filesModified: ctx.filesModified ?? reflection?.task_result.files_changed ?? [],
    exitReason,
    costUsd: ctx.costUsd ?? result.total_cost_usd,
    sessionId: ctx.sessionId ?? result.session_id,
    error,
    reflection,
  });
}
