import { HOOK_EVENTS, type HookEventName, type HookPayloads, type HookRunResult } from '@headspace/agent-runtime';

/** The hook events of Claude Code that Headspace's engine also knows. */
export const isEngineEvent = (name: unknown): name is HookEventName => typeof name === 'string' && (HOOK_EVENTS as readonly string[]).includes(name);

/** Events whose `hookSpecificOutput` the CLI accepts (others fail its validation). */
const SPECIFIC = new Set<HookEventName>(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The CLI's PostToolUse `tool_response` is the tool's own object (Bash: stdout, stderr, …): the engine reads text. */
function responseText(response: unknown): string {
  if (typeof response === 'string') return response;
  const r = obj(response);
  const parts = [str(r.stdout), str(r.stderr)].filter((p): p is string => p !== undefined && p !== '');
  return parts.length > 0 ? parts.join('\n') : JSON.stringify(response ?? null);
}

/** The engine's payload of a Claude Code hook input (the CLI's snake_case fields, the engine's shapes). */
export function enginePayload<E extends HookEventName>(event: E, input: Record<string, unknown>): HookPayloads[E] {
  const tool = { tool_name: str(input.tool_name) ?? '', tool_input: obj(input.tool_input), tool_use_id: str(input.tool_use_id) ?? '' };
  const payloads: { [K in HookEventName]: () => HookPayloads[K] } = {
    PreToolUse: () => tool,
    PostToolUse: () => ({ ...tool, tool_response: { content: responseText(input.tool_response), is_error: false } }),
    PostToolUseFailure: () => ({ ...tool, error: str(input.error) ?? '' }),
    PermissionRequest: () => tool,
    UserPromptSubmit: () => ({ prompt: str(input.prompt) ?? '' }),
    Stop: () => ({ stop_hook_active: input.stop_hook_active === true, ...(str(input.last_assistant_message) ? { last_assistant_message: str(input.last_assistant_message) } : {}) }),
    SubagentStop: () => ({ stop_hook_active: input.stop_hook_active === true, ...(str(input.agent_type) ? { agent_type: str(input.agent_type) } : {}) }),
    SessionStart: () => ({ source: (['startup', 'resume', 'clear', 'compact'] as const).find((s) => s === input.source) ?? 'startup' }),
    SessionEnd: () => ({ reason: str(input.reason) ?? 'other' }),
    PreCompact: () => ({ trigger: input.trigger === 'manual' ? 'manual' : 'auto', ...(str(input.custom_instructions) ? { custom_instructions: str(input.custom_instructions) } : {}) }),
    Notification: () => ({ message: str(input.message) ?? '', ...(str(input.notification_type) ? { notification_type: str(input.notification_type) } : {}) }),
    Setup: () => ({ trigger: 'init' }),
  };
  return payloads[event]() as HookPayloads[E];
}

/**
 * The engine's combined result as Claude Code's hook output JSON. A PreToolUse deny (or ask)
 * becomes `permissionDecision`; an engine `allow` is not passed on, so the CLI's own permission
 * rules (owned paths, denied commands) still decide: Headspace's hooks can narrow, never widen.
 * A Stop or SubagentStop hook that denies keeps the agent working (`decision: block`), as does a
 * PostToolUse deny (its reason shown to the model); additionalContext reaches the model.
 */
export function claudeHookOutput(event: HookEventName, r: HookRunResult): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const context = r.additionalContext.join('\n\n');
  const specific: Record<string, unknown> = { hookEventName: event };
  if (event === 'PreToolUse') {
    if (r.decision === 'deny' || r.decision === 'ask') {
      specific.permissionDecision = r.decision;
      specific.permissionDecisionReason = r.reason ?? 'denied by a Headspace hook';
    } else if (r.updatedInput) specific.updatedInput = r.updatedInput;
  } else if (event === 'UserPromptSubmit' && r.blocked) {
    out.decision = 'block';
    out.reason = r.reason ?? 'blocked by a Headspace hook';
  } else if ((event === 'Stop' || event === 'SubagentStop') && r.decision === 'deny') {
    out.decision = 'block';
    out.reason = r.reason ?? 'a Headspace Stop hook asks to keep working';
  } else if (r.feedback.length > 0) {
    out.decision = 'block';
    out.reason = r.feedback.join('\n');
  }
  if (context !== '') specific.additionalContext = context;
  if (SPECIFIC.has(event) && Object.keys(specific).length > 1) out.hookSpecificOutput = specific;
  if (r.stopAgent) {
    out.continue = false;
    if (r.stopAgent.reason) out.stopReason = r.stopAgent.reason;
  }
  const messages = r.outcomes.flatMap((o) => (o.systemMessage ? [o.systemMessage] : []));
  if (messages.length > 0) out.systemMessage = messages.join('\n');
  return out;
}
