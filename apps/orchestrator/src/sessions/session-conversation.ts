import type { SessionEvent } from './agent-session.decider';

export type ConversationBlock = Record<string, unknown>;
export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: ConversationBlock[];
}

/**
 * The Messages-API conversation a session's events describe, exactly as it was sent: the opening
 * prompt, each turn's injected mail, the model's replies and the tool results. A resumed session
 * continues from here; tool calls already answered are never run again.
 */
export function conversationOf(events: SessionEvent[]): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  let pendingUser: ConversationBlock[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'session.started':
        pendingUser = [{ type: 'text', text: event.data.prompt }];
        break;
      case 'session.model-called':
        if (event.data.injectedText) pendingUser.push({ type: 'text', text: event.data.injectedText });
        messages.push({ role: 'user', content: pendingUser });
        messages.push({ role: 'assistant', content: event.data.content });
        pendingUser = [];
        break;
      case 'session.tool-called':
        pendingUser.push({
          type: 'tool_result',
          tool_use_id: event.data.toolUseId,
          content: event.data.content,
          ...(event.data.isError ? { is_error: true } : {}),
        });
        break;
      default:
        break;
    }
  }
  if (pendingUser.length > 0) messages.push({ role: 'user', content: pendingUser });
  return messages;
}
