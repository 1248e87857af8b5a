/**
 * The 12 lifecycle events of seed 003 Requirement 3.1, with the input each hook receives on stdin
 * (JSON, snake_case as in the seed) and the field its matcher is tested against.
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PreCompact',
  'Notification',
  'Stop',
  'SubagentStop',
  'SessionEnd',
  'Setup',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Events whose hooks can stop what is about to happen (the rest are non-blocking, 3.1). */
export const BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set<HookEventName>(['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Stop']);

export type SessionType = 'interactive' | 'headless';

/** Fields every hook input carries (3.10), plus the optional extras of our runtime. */
export interface CommonHookInput {
  session_id: string;
  hook_event_name: HookEventName;
  cwd: string;
  session_type: SessionType;
  transcript_path?: string;
  agent_id?: string;
  persona?: string;
  model?: string;
}

export type ToolInputObject = Record<string, unknown>;

/** The event-specific part of each event's input. */
export interface HookPayloads {
  SessionStart: { source: 'startup' | 'resume' | 'clear' | 'compact' };
  UserPromptSubmit: { prompt: string };
  PreToolUse: { tool_name: string; tool_input: ToolInputObject; tool_use_id: string };
  PostToolUse: { tool_name: string; tool_input: ToolInputObject; tool_use_id: string; tool_response: { content: string; is_error: boolean; files_modified?: string[] } };
  PostToolUseFailure: { tool_name: string; tool_input: ToolInputObject; tool_use_id: string; error: string; error_code?: string };
  PermissionRequest: { tool_name: string; tool_input: ToolInputObject; tool_use_id?: string; reason?: string };
  /** `context_snapshot`: what must survive compaction (PRESERVE_VERBATIM items etc.), for backup hooks. */
  PreCompact: { trigger: 'manual' | 'auto'; custom_instructions?: string; context_snapshot?: unknown };
  Notification: { message: string; notification_type?: string; title?: string };
  /** `stop_hook_active`: the agent is already continuing because of a Stop hook (avoid loops). */
  Stop: { stop_hook_active: boolean; last_assistant_message?: string };
  SubagentStop: { stop_hook_active: boolean; agent_type?: string; subagent_id?: string; summary?: string };
  SessionEnd: { reason: string };
  Setup: { trigger: 'init' | 'init-only' | 'maintenance' };
}

export type HookInput<E extends HookEventName = HookEventName> = CommonHookInput & HookPayloads[E] & { hook_event_name: E };

/** The input field a matcher is tested against (3.8); events without one match every hook. */
export function matcherTarget(input: HookInput): string | undefined {
  const i = input as unknown as Record<string, unknown>;
  switch (input.hook_event_name) {
    case 'PreToolUse':
    case 'PostToolUse':
    case 'PostToolUseFailure':
    case 'PermissionRequest':
      return i.tool_name as string;
    case 'SessionStart':
      return i.source as string;
    case 'PreCompact':
    case 'Setup':
      return i.trigger as string;
    case 'Notification':
      return i.notification_type as string | undefined;
    case 'SessionEnd':
      return i.reason as string;
    case 'SubagentStop':
      return i.agent_type as string | undefined;
    default:
      return undefined;
  }
}
