/** One line of `claude -p --output-format stream-json --verbose`, parsed, unknown keys kept. */
export type ClaudeStreamMessage =
  | { type: 'system'; subtype: string; session_id?: string; model?: string; tools?: string[]; [k: string]: unknown }
  | {
      type: 'assistant';
      message: { id?: string; model?: string; content: Array<Record<string, unknown>>; usage?: Record<string, unknown> };
      parent_tool_use_id?: string | null;
      session_id?: string;
      [k: string]: unknown;
    }
  | { type: 'user'; message: { content: Array<Record<string, unknown>> | string }; parent_tool_use_id?: string | null; [k: string]: unknown }
  | { type: 'result'; [k: string]: unknown }
  | { type: string; [k: string]: unknown };

/** Parse one stdout line; undefined for blank lines, non-JSON and JSON without a string `type`. */
export function parseStreamLine(line: string): ClaudeStreamMessage | undefined {
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string') return v as ClaudeStreamMessage;
  } catch {
    // a partial or foreign line: not a stream message
  }
  return undefined;
}

type ContentBlock = Record<string, unknown>;

function contentOf(m: ClaudeStreamMessage): ContentBlock[] {
  const message = (m as { message?: { content?: unknown } }).message;
  return Array.isArray(message?.content) ? (message.content as ContentBlock[]) : [];
}

/** The session id the CLI announced in its `system/init` line. */
export function streamSessionId(messages: readonly ClaudeStreamMessage[]): string | undefined {
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init' && typeof m.session_id === 'string');
  return init?.session_id as string | undefined;
}

/** Every `tool_use` block of the assistant messages (main agent and subagents), in order. */
export function toolUseBlocks(messages: readonly ClaudeStreamMessage[]): Array<{ id?: string; name: string; input?: Record<string, unknown> }> {
  const out: Array<{ id?: string; name: string; input?: Record<string, unknown> }> = [];
  for (const m of messages) {
    if (m.type !== 'assistant') continue;
    for (const b of contentOf(m)) {
      if (b.type === 'tool_use' && typeof b.name === 'string') {
        out.push({ id: typeof b.id === 'string' ? b.id : undefined, name: b.name, input: b.input as Record<string, unknown> | undefined });
      }
    }
  }
  return out;
}

/** `tool_result` blocks the CLI sent back flagged as errors: tool_use id → text. */
export function toolErrors(messages: readonly ClaudeStreamMessage[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of messages) {
    if (m.type !== 'user') continue;
    for (const b of contentOf(m)) {
      if (b.type !== 'tool_result' || b.is_error !== true || typeof b.tool_use_id !== 'string') continue;
      const c = b.content;
      const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((x: { text?: unknown }) => (typeof x.text === 'string' ? x.text : '')).join('\n') : '';
      out.set(b.tool_use_id, text);
    }
  }
  return out;
}

/** Text blocks of the assistant messages, thinking included. */
export function assistantTexts(messages: readonly ClaudeStreamMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.type !== 'assistant') continue;
    for (const b of contentOf(m)) {
      if (b.type === 'text' && typeof b.text === 'string') out.push(b.text);
      else if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking !== '') out.push(b.thinking);
    }
  }
  return out;
}
