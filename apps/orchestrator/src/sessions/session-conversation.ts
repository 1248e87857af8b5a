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
  let messages: ConversationMessage[] = [];
  let pendingUser: ConversationBlock[] = [];
  let prompt = '';
  for (const event of events) {
    switch (event.type) {
      case 'session.started':
        prompt = event.data.prompt;
        pendingUser = [{ type: 'text', text: prompt }];
        break;
      case 'session.compacted':
        // The turns so far give way to their summary: the task, the summary and what triage preserved.
        messages = [];
        pendingUser = [
          { type: 'text', text: prompt },
          { type: 'text', text: compactedText(event.data) },
        ];
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

/** What the model reads in place of the compacted turns (as Claude Code continues a compacted conversation). */
export function compactedText(d: { turn: number; summary: string; preserved?: string }): string {
  return [
    `This session is being continued after its context was compacted: turns 1–${d.turn} are summarised below.`,
    `<session-summary>\n${d.summary}\n</session-summary>`,
    ...(d.preserved ? [`Kept verbatim from those turns (errors, paths, decisions; also in the session-state file):\n<preserved-context>\n${d.preserved}\n</preserved-context>`] : []),
    'Continue the task from where it stopped.',
  ].join('\n\n');
}
