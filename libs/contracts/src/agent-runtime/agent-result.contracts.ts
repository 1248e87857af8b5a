import { z } from 'zod';
import { boundedJsonObject, MODEL_JSON_BOUNDS } from '../json.contracts';
import { sessionExitReasons } from '../orchestrator/session.contracts';

/**
 * What an agent run returns to its parent (seed 003 Requirement 5.3: summary, turnsUsed,
 * tokensConsumed, toolsUsed, filesModified, exitReason). Exit reasons are the session's.
 */
export const agentExitReasons = sessionExitReasons;
export type AgentExitReason = (typeof agentExitReasons)[number];

export const agentTokensSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative(),
});
export type AgentTokens = z.output<typeof agentTokensSchema>;

export const agentResultSchema = z.object({
  summary: z.string().max(20_000),
  turnsUsed: z.number().int().nonnegative(),
  tokensConsumed: agentTokensSchema,
  toolsUsed: z.array(z.string().min(1).max(200)).max(500),
  filesModified: z.array(z.string().min(1).max(1_000)).max(5_000),
  exitReason: z.enum(agentExitReasons),
  costUsd: z.number().nonnegative().optional(),
  sessionId: z.string().max(200).optional(),
  /** Stable error code (AREA.REASON) and message when exitReason is error. */
  error: z.object({ code: z.string(), message: z.string().max(5_000) }).optional(),
  /** The schema-valid reflection when the agent returned one. */
  reflection: boundedJsonObject(MODEL_JSON_BOUNDS).optional(),
});
export type AgentResult = z.output<typeof agentResultSchema>;
