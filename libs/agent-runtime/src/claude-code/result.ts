import { z } from 'zod';
import { agentResultSchema, ErrorCodes, reflectionSchema, type AgentExitReason, type AgentResult, type Reflection } from '@headspace/contracts';
import { parseReflection } from '../reflection/parse-reflection';

/**
 * The single JSON object `claude -p --output-format json` prints when it finishes: result text,
 * subtype, is_error, num_turns, session_id, total_cost_usd, usage, and — with `--json-schema` —
 * `structured_output`. Unknown keys are kept (the CLI adds fields over time).
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
});
export type ClaudeJsonResult = z.output<typeof claudeJsonResultSchema>;

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

/** Map the CLI's JSON to the seed's AgentResult (summary, turns, tokens, tools, files, exit reason). */
export function toAgentResult(result: ClaudeJsonResult): AgentResult {
  const reflection = reflectionOf(result);
  const exitReason = exitReasonFor(result);
  const u = result.usage;
  return agentResultSchema.parse({
    summary: (reflection?.task_result.summary ?? result.result ?? '').slice(0, 20_000),
    turnsUsed: result.num_turns,
    tokensConsumed: {
      input: u?.input_tokens ?? 0,
      output: u?.output_tokens ?? 0,
      cacheRead: u?.cache_read_input_tokens ?? 0,
      cacheWrite: u?.cache_creation_input_tokens ?? 0,
    },
    // The json output format reports no per-tool trace; tools used are unknown here.
    toolsUsed: [],
    filesModified: reflection?.task_result.files_changed ?? [],
    exitReason,
    costUsd: result.total_cost_usd,
    sessionId: result.session_id,
    error: exitReason === 'completed' ? undefined : { code: ErrorCodes.claudeCodeFailed, message: `claude ended with ${result.subtype}${result.result ? `: ${result.result.slice(0, 2_000)}` : ''}` },
    reflection,
  });
}
