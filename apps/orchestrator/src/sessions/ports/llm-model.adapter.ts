import type Anthropic from '@anthropic-ai/sdk';
import type { PriceTable } from '@headspace/contracts';
import { contextWindowFor, workingWindowFor, type LlmClient } from '@headspace/llm';
import type { ConversationBlock } from '../session-conversation';
import type { ModelCall, ModelPort, ModelReply } from '../run-session/session-ports';

const ONE_HOUR = { type: 'ephemeral', ttl: '1h' } as const;

/**
 * Marks the prompt-cache breakpoints of seed 003 Req 11: the tool schemas and the system prompt are
 * the same bytes on every turn of a session, so both end with a 1-hour breakpoint; the
 * conversation is never cached.
 */
export function withCacheBreakpoints(call: Pick<ModelCall, 'system' | 'tools'>): { system: ConversationBlock[]; tools: ConversationBlock[] } {
  const mark = (blocks: ConversationBlock[]) => blocks.map((b, i) => (i === blocks.length - 1 ? { ...b, cache_control: ONE_HOUR } : b));
  return { system: mark(call.system), tools: mark(call.tools) };
}

/** The model behind the Anthropic SDK (the real API, or the simulator at ANTHROPIC_BASE_URL). */
export class LlmModelPort implements ModelPort {
  constructor(
    private readonly client: LlmClient,
    private readonly signal?: AbortSignal,
    /** The governor's price table: its long-context step caps the window a session hands off in. */
    private readonly prices?: () => PriceTable | undefined,
  ) {}

  contextWindow(model: string): number {
    return workingWindowFor(model, contextWindowFor(model), this.prices?.());
  }

  async call(request: ModelCall): Promise<ModelReply> {
    const { system, tools } = withCacheBreakpoints(request);
    const result = await this.client.create({
      model: request.model,
      maxTokens: request.maxTokens,
      effort: request.effort,
      system: system as unknown as Anthropic.TextBlockParam[],
      ...(tools.length ? { tools: tools as unknown as Anthropic.Tool[] } : {}),
      messages: request.messages as unknown as Anthropic.MessageParam[],
      ...(this.signal ? { signal: this.signal } : {}),
    });
    const u = result.usage;
    return {
      model: result.message.model,
      stopReason: result.message.stop_reason ?? 'end_turn',
      content: result.message.content as unknown as ConversationBlock[],
      usage: {
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
        cacheWrite5mTokens: u.cacheCreation5mTokens,
        cacheWrite1hTokens: u.cacheCreation1hTokens,
        cacheReadTokens: u.cacheReadTokens,
      },
    };
  }
}
