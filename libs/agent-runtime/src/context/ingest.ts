import type { ContextWindow, TrackedContextItem } from './context-window';

/**
 * Feed Anthropic Messages API messages into a ContextWindow, one item per content block, so the
 * session loop does not have to know the triage rules: text → user/assistant, tool_use →
 * tool-call metadata (ephemeral), tool_result → triaged with the tool's name (an `is_error`
 * result is kept verbatim), thinking → compressible reasoning.
 */
export interface MessageLike {
  role: 'user' | 'assistant';
  content: string | ReadonlyArray<Record<string, unknown>>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (b && typeof b === 'object' && (b as { type?: string }).type === 'text' ? String((b as { text?: unknown }).text ?? '') : ''))
      .filter((s) => s.length > 0)
      .join('\n');
  }
  return '';
}

export class MessageIngestor {
  private readonly toolNames = new Map<string, string>();

  constructor(private readonly window: ContextWindow) {}

  ingest(message: MessageLike): TrackedContextItem[] {
    const out: TrackedContextItem[] = [];
    const source = message.role === 'user' ? 'user' : 'assistant';
    if (typeof message.content === 'string') {
      if (message.content.length > 0) out.push(this.window.add({ source, content: message.content }));
      return out;
    }
    for (const block of message.content) {
      const type = block.type;
      if (type === 'text' && typeof block.text === 'string' && block.text.length > 0) {
        out.push(this.window.add({ source, content: block.text }));
      } else if (type === 'thinking' && typeof block.thinking === 'string') {
        out.push(this.window.add({ source: 'assistant', content: block.thinking, category: 'COMPRESS_AGGRESSIVE', kind: 'reasoning-chain' }));
      } else if (type === 'tool_use') {
        const id = String(block.id ?? '');
        const name = String(block.name ?? '');
        if (id) this.toolNames.set(id, name);
        out.push(this.window.add({ source: 'tool_use', toolName: name, content: JSON.stringify({ id, name, input: block.input ?? {} }) }));
      } else if (type === 'tool_result') {
        const toolName = this.toolNames.get(String(block.tool_use_id ?? ''));
        const content = textOf(block.content);
        if (content.length === 0) continue;
        out.push(
          block.is_error === true
            ? this.window.add({ source: 'tool_result', toolName, content, category: 'PRESERVE_VERBATIM', kind: 'tool-error' })
            : this.window.add({ source: 'tool_result', toolName, content }),
        );
      }
    }
    return out;
  }
}
