import { randomUUID } from 'node:crypto';
import { toAnthropicTool, type AgentEvaluator, type AnyToolDefinition, type PromptEvaluator } from '@headspace/agent-runtime';
import type { ConversationBlock, ConversationMessage } from '../session-conversation';
import type { BudgetPort, ModelPort, ModelReply } from '../run-session/session-ports';

/** The simulator picks its scenario by these lines; a real model reads them as plain context. */
const SYSTEM = (situation: 'prompt-hook' | 'agent-hook') =>
  [
    'You evaluate one hook of an AI coding agent session. Read the hook prompt and the event input it carries and decide.',
    ...(situation === 'agent-hook' ? ['You may use the read-only tools to check the workspace before you answer.'] : []),
    'Answer with JSON only: {"ok": true} to let the action go ahead, or {"ok": false, "reason": "<why, for the agent>"} to stop it.',
    '',
    'Persona: hook-evaluator',
    `Situation: ${situation}`,
  ].join('\n');

const MAX_OUTPUT_TOKENS = 1_024;
const AGENT_MAX_TURNS = 6;

/** `{"ok": …, "reason": …}` anywhere in the reply (a model may wrap it in prose or a fence). */
export function parseVerdict(text: string): { ok: boolean; reason?: string } {
  const candidates = text.match(/\{[^{}]*"ok"[^{}]*\}/g) ?? [];
  for (const candidate of candidates.reverse()) {
    try {
      const parsed = JSON.parse(candidate) as { ok?: unknown; reason?: unknown };
      if (typeof parsed.ok === 'boolean') return { ok: parsed.ok, ...(typeof parsed.reason === 'string' && parsed.reason ? { reason: parsed.reason } : {}) };
    } catch {
      // not this one
    }
  }
  throw new Error(`the evaluator did not answer {"ok": …}: ${text.slice(0, 200)}`);
}

const textOf = (content: ConversationBlock[]) =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join('\n');

/**
 * Prompt and agent hooks (`type: prompt` / `type: agent`, seed 003 Req 3.2) evaluated on a light
 * model through the session's own model port, every call asked of and settled with the cost
 * governor like a turn (its command ids keyed `hook:<id>`), so a hook's spend is the session's.
 * An agent hook gets the read-only workspace tools for a few turns.
 */
export class LlmHookEvaluator implements PromptEvaluator, AgentEvaluator {
  constructor(
    private readonly model: ModelPort,
    private readonly budget: BudgetPort,
    private readonly defaultModel: string,
  ) {}

  async evaluate(request: { prompt: string; model?: string; event: string; signal: AbortSignal; cwd?: string; tools?: readonly AnyToolDefinition[] }): Promise<{ ok: boolean; reason?: string }> {
    const agent = request.tools !== undefined && request.cwd !== undefined;
    const tools = agent ? request.tools! : [];
    const messages: ConversationMessage[] = [{ role: 'user', content: [{ type: 'text', text: request.prompt }] }];
    const id = randomUUID();
    for (let turn = 1; turn <= (agent ? AGENT_MAX_TURNS : 1); turn++) {
      if (request.signal.aborted) throw new Error('hook evaluation aborted');
      const reply = await this.call(`hook:${id}:${turn}`, request.model ?? this.defaultModel, agent ? 'agent-hook' : 'prompt-hook', messages, tools);
      const uses = reply.content.filter((b) => b.type === 'tool_use');
      if (uses.length === 0 || !agent) return parseVerdict(textOf(reply.content));
      messages.push({ role: 'assistant', content: reply.content });
      const results: ConversationBlock[] = [];
      for (const use of uses) {
        const def = tools.find((t) => t.name === use.name);
        const parsed = def?.schema.safeParse(use.input);
        const result = !def
          ? { content: `Tool ${String(use.name)} is not available to a hook`, isError: true }
          : !parsed?.success
            ? { content: `Invalid input for ${def.name}`, isError: true }
            : await def.execute(parsed.data, { workspaceRoot: request.cwd!, agentId: 'hook-evaluator', toolUseId: String(use.id), signal: request.signal });
        results.push({ type: 'tool_result', tool_use_id: use.id, content: result.content, ...(result.isError ? { is_error: true } : {}) });
      }
      messages.push({ role: 'user', content: results });
    }
    throw new Error(`the agent hook did not answer within ${AGENT_MAX_TURNS} turns`);
  }

  private async call(key: string, model: string, situation: 'prompt-hook' | 'agent-hook', messages: ConversationMessage[], tools: readonly AnyToolDefinition[]): Promise<ModelReply> {
    const estimatedInputTokens = Math.ceil(JSON.stringify(messages).length / 4);
    const budget = await this.budget.maySpend({ model, estimatedInputTokens, maxOutputTokens: MAX_OUTPUT_TOKENS, turn: 0, key });
    if (budget.decision !== 'allowed' && budget.decision !== 'downgraded') throw new Error(`the cost governor ${budget.decision} the hook evaluation: ${budget.reason}`);
    let reply: ModelReply;
    try {
      reply = await this.model.call({
        model: budget.model,
        system: [{ type: 'text', text: SYSTEM(situation) }],
        tools: tools.map((t) => toAnthropicTool(t) as unknown as ConversationBlock),
        messages,
        maxTokens: MAX_OUTPUT_TOKENS,
        effort: 'quick',
      });
    } catch (error) {
      if (budget.reservationId) await this.budget.release({ reservationId: budget.reservationId, turn: 0, key, reason: `hook evaluation failed: ${(error as Error).message}` }).catch(() => undefined);
      throw error;
    }
    await this.budget.recordUsage({ ...(budget.reservationId ? { reservationId: budget.reservationId } : {}), model: reply.model, usage: reply.usage, turn: 0, key });
    return reply;
  }
}
