import type Anthropic from '@anthropic-ai/sdk';
import type { Reflection } from '@headspace/contracts';
import type { LlmClient } from '@headspace/llm';
import { parseReflection } from '../../reflection';
import { toToolResultBlock, type ToolRegistry, type ToolResult } from '../../tools';

export interface SessionSpec {
  /** Display name, as the composer writes it: `# Team Member: <name>`. */
  name: string;
  /** The `Situation:` line, the simulator's scenario key. */
  situation: string;
  /** The first user message: the task, as the orchestrator phrases it. */
  prompt: string;
  tools: ToolRegistry;
  workspaceRoot: string;
  maxTurns?: number;
}

export interface PlayedSession {
  /** Every text and thinking block the model produced, in order: what a person would see. */
  shown: string[];
  calls: Array<{ name: string; input: Record<string, unknown>; result: ToolResult }>;
  reflection: Reflection;
  /** `task_result.output`: the phase's result. */
  output: Record<string, unknown>;
}

/**
 * The smallest agent loop: call the model, run its tool_use blocks through the registry in the
 * workspace, send the results back, until a turn has no tool calls; the last text carries the
 * reflection.
 */
export async function playSession(client: LlmClient, spec: SessionSpec): Promise<PlayedSession> {
  const system = `# Team Member: ${spec.name}\n\nYou are ${spec.name} of a Headspace team.\n\nSituation: ${spec.situation}`;
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: spec.prompt }];
  const shown: string[] = [];
  const calls: PlayedSession['calls'] = [];
  let finalText = '';
  for (let turn = 0; turn < (spec.maxTurns ?? 12); turn++) {
    const { message } = await client.stream({ model: 'haiku', maxTokens: 16_000, effort: 'quick', system, tools: spec.tools.apiTools(), messages });
    messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
    for (const b of message.content) {
      if (b.type === 'text') shown.push(b.text);
      if (b.type === 'thinking') shown.push(b.thinking);
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const b of message.content) {
      if (b.type !== 'tool_use') continue;
      const { result } = await spec.tools.dispatch({ id: b.id, name: b.name, input: b.input }, { workspaceRoot: spec.workspaceRoot, agentId: spec.name.toLowerCase() });
      calls.push({ name: b.name, input: b.input as Record<string, unknown>, result });
      results.push(toToolResultBlock(b.id, result));
    }
    if (results.length === 0) {
      finalText = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      break;
    }
    messages.push({ role: 'user', content: results });
  }
  const parsed = parseReflection(finalText);
  if (!parsed.ok) throw new Error(`${spec.name} (${spec.situation}) ended without a valid reflection: ${parsed.message}\n${finalText}`);
  return { shown, calls, reflection: parsed.reflection, output: parsed.reflection.task_result.output ?? {} };
}
