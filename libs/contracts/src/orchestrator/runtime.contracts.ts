import { z } from 'zod';

/**
 * What runs an agent session: Headspace's own agent loop (`built-in`) or the Claude Code CLI
 * (`claude-code`, seed 001's spawn protocol). Chosen by the run, else the team member, else the
 * persona's default, else built-in.
 */
export const agentRuntimes = ['built-in', 'claude-code'] as const;
export const agentRuntimeSchema = z.enum(agentRuntimes);
export type AgentRuntime = z.output<typeof agentRuntimeSchema>;
export const DEFAULT_AGENT_RUNTIME: AgentRuntime = 'built-in';
