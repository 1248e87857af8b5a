import type { AgentDefinition, ToolPermissionPolicy } from '@headspace/agent-runtime';

/**
 * The wire name of an agent's tool. The registry names it `agent:<key>` (seed 003 8.10), but the
 * Messages API allows tool names matching `^[a-zA-Z0-9_-]{1,64}$` only, so `:` (plugin agents are
 * `plugin:name`) becomes `__`, as MCP tools are `mcp__server__tool`.
 */
export function agentToolName(key: string): string {
  return `agent__${key.replace(/:/g, '__').replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

const ruleOf = (raw: string) => /^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$/s.exec(raw);

/** A rule naming delegation: `Agent`/`Task` (any agent), `Agent(<name>)`, the wire name, or `*`. */
function namesAgent(raw: string, key: string): boolean {
  const m = ruleOf(raw);
  if (!m) return false;
  const [, tool, specifier] = m;
  if (tool === '*' || tool === 'agent__*' || tool === agentToolName(key)) return true;
  return (tool === 'Agent' || tool === 'Task') && (specifier === undefined || specifier.trim() === key);
}

/**
 * Whether a lead under this policy may delegate to the agent: no allow-list, or one that names
 * delegation; and no deny rule naming it. Read-only kinds (workshop, review) have an allow-list
 * without `Agent`, so they get no agent tools.
 */
export function mayDelegate(policy: ToolPermissionPolicy, key: string): boolean {
  if (policy.disallowedTools?.some((r) => namesAgent(r, key))) return false;
  return policy.tools === undefined || policy.tools.some((r) => namesAgent(r, key));
}

/**
 * Agent definitions a lead is offered, in a stable order (the tools array must not change between
 * turns: prompt cache). The shipped templates only when the allow-list names delegation: a session
 * with no allow-list gets the agents its project, user or operator defined, and no tools (or cost)
 * it never asked for.
 */
export function delegableAgents(agents: readonly AgentDefinition[], policy: ToolPermissionPolicy): AgentDefinition[] {
  return agents
    .filter((a) => mayDelegate(policy, a.key) && (a.scope !== 'built-in' || policy.tools !== undefined))
    .sort((a, b) => a.key.localeCompare(b.key));
}
