import { resolveModelAlias, resolveToolAliases } from './aliases';
import type { AgentDefinition } from './parse';

/**
 * A definition used as a persona's agent type: what the session loop needs to run it.
 * Memory is injected before the body (seed 003 8.7 step 8: memory + skills + systemPrompt).
 */
export interface AgentRuntimeSettings {
  agentType: string;
  model: string;
  /** Allowlist (canonical tool names/patterns); undefined = every tool the persona may use. */
  tools?: string[];
  disallowedTools?: string[];
  systemPrompt: string;
  effort: 'quick' | 'standard' | 'deep';
  maxTurns?: number;
  permissionMode: AgentDefinition['permissionMode'];
  hooks: NonNullable<AgentDefinition['hooks']>;
  skills: string[];
  mcpServers: Record<string, Record<string, unknown>>;
  color?: AgentDefinition['color'];
}

/** `${VAR}` → env value (unset → left as is, so a missing secret is visible, not empty). */
export function substituteEnv<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === 'string') return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string) => env[name] ?? m) as T;
  if (Array.isArray(value)) return value.map((v) => substituteEnv(v, env)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env)])) as T;
  return value;
}

export function toAgentRuntimeSettings(
  def: AgentDefinition,
  parent: { model: string; effort?: AgentRuntimeSettings['effort']; env?: Record<string, string | undefined> },
): AgentRuntimeSettings {
  const systemPrompt = [def.memory ? `## Memory\n${def.memory.trim()}` : undefined, def.systemPrompt].filter((s) => s && s.length > 0).join('\n\n');
  return {
    agentType: def.key,
    model: resolveModelAlias(def.model, parent.model),
    tools: def.tools ? resolveToolAliases(def.tools) : undefined,
    disallowedTools: def.disallowedTools ? resolveToolAliases(def.disallowedTools) : undefined,
    systemPrompt,
    effort: def.effort ?? parent.effort ?? 'standard',
    maxTurns: def.maxTurns,
    permissionMode: def.permissionMode,
    hooks: def.hooks ?? {},
    skills: def.skills ?? [],
    mcpServers: substituteEnv(def.mcpServers ?? {}, parent.env ?? process.env),
    color: def.color,
  };
}

/** Requirement 8.10: every registered agent as a tool the model can call. */
export function agentToolDefinition(def: AgentDefinition): { name: string; description: string } {
  return { name: `agent:${def.key}`, description: def.description };
}
