import { performance } from 'node:perf_hooks';
import type Anthropic from '@anthropic-ai/sdk';
import type { PriceTable } from '@headspace/contracts';
import { agentAttributes, SpanKind, withSpan, type Span } from '@headspace/telemetry';
import { mapLlmError } from './errors';
import { fitThinking, thinkingSettings, type EffortLevel } from './effort';
import { recordGenAiFailure, recordGenAiSuccess, type GenAiCall } from './genai-metrics';
import { MODEL_TABLE, resolveModel } from './models';
import { usageCostUsd } from './pricing';
import { normaliseUsage, type LlmUsage } from './usage';

export interface LlmClientOptions {
  /** Defaults to the SDK's own lookup (`ANTHROPIC_API_KEY`). Never logged. */
  apiKey?: string;
  /** Defaults to `ANTHROPIC_BASE_URL`, then https://api.anthropic.com. */
  baseURL?: string;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** Retries of 408/409/429/5xx/529 and connection errors, with the SDK's exponential backoff. */
  maxRetries: number;
  defaultHeaders?: Record<string, string>;
  /** Emit the SDK's own per-call child spans as well (default true). */
  sdkTraces?: boolean;
  /**
   * The price table the `chat` span's `headspace.cost.usd` is computed with (the cost governor's
   * published one, or a getter returning the newest); without one the span carries no cost.
   */
  prices?: PriceTable | (() => PriceTable | undefined);
}

/** One model call. `model` may be an alias; everything else is the Messages API's own shape. */
export interface LlmRequest
  extends Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens' | 'stream' | 'thinking'> {
  /** `opus` | `sonnet` | `haiku` | `inherit` | a concrete `claude-…` id. */
  model: string;
  /** The parent's model, for `inherit`. */
  parentModel?: string;
  maxTokens: number;
  /** Enables extended thinking with the effort's budget (Haiku is always quick). */
  effort?: EffortLevel;
  /**
   * Raw thinking config; ignored when `effort` is given. On adaptive-thinking models (Claude 4.6 and
   * later) a `type: 'enabled'` budget is sent as adaptive thinking with the matching effort level.
   */
  thinking?: Anthropic.ThinkingConfigParam;
  signal?: AbortSignal;
}

export interface LlmResult {
  message: Anthropic.Message;
  usage: LlmUsage;
  /** The concrete model requested. */
  model: string;
  /** True when the answer came from the Headspace simulator (message id `msg_sim_…`). */
  simulated: boolean;
}

export interface LlmStreamHandlers {
  /** Every raw stream event, in order (message_start … message_stop). */
  onEvent?: (event: Anthropic.MessageStreamEvent) => void;
  onText?: (delta: string) => void;
}

export interface LlmClient {
  /** The Anthropic SDK client, loaded on first use. */
  sdk(): Promise<Anthropic>;
  readonly baseURL: string;
  create(request: LlmRequest): Promise<LlmResult>;
  /** Streams (SSE) and resolves with the final, reassembled message. */
  stream(request: LlmRequest, handlers?: LlmStreamHandlers): Promise<LlmResult>;
  countTokens(request: Omit<LlmRequest, 'maxTokens'> & { maxTokens?: number }): Promise<number>;
}

/** Builds the SDK body: resolves the alias and applies the effort's thinking budget. */
export function toMessageParams(request: LlmRequest): Anthropic.MessageCreateParamsNonStreaming {
  const { model: alias, parentModel, maxTokens, effort, thinking, signal: _signal, ...rest } = request;
  const model = resolveModel(alias, parentModel);
  const body: Anthropic.MessageCreateParamsNonStreaming = { ...rest, model, max_tokens: maxTokens };
  if (effort !== undefined) {
    const cap = Object.values(MODEL_TABLE).find((m) => m.id === model)?.maxOutputTokens;
    const settings = thinkingSettings({ effort, model, maxTokens, maxOutputTokens: cap });
    body.thinking = settings.thinking;
    body.max_tokens = settings.max_tokens;
    if (settings.outputEffort) body.output_config = { ...body.output_config, effort: settings.outputEffort };
  } else if (thinking !== undefined) {
    const fitted = fitThinking(thinking, model);
    body.thinking = fitted.thinking;
    if (fitted.outputEffort && !body.output_config?.effort) body.output_config = { ...body.output_config, effort: fitted.outputEffort };
  }
  return body;
}

function setUsageAttributes(span: Span, message: Anthropic.Message, usage: LlmUsage, costUsd: number | undefined): void {
  span.setAttributes({
    'gen_ai.response.model': message.model,
    'gen_ai.response.id': message.id,
    'gen_ai.response.finish_reasons': message.stop_reason ? [message.stop_reason] : [],
    // The semantic conventions count every token the model read as input, cache reads and writes included.
    'gen_ai.usage.input_tokens': usage.totalInputTokens,
    'headspace.llm.uncached_input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheCreationTokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
    'headspace.llm.cache_creation_5m_tokens': usage.cacheCreation5mTokens,
    'headspace.llm.cache_creation_1h_tokens': usage.cacheCreation1hTokens,
    'headspace.llm.simulated': message.id.startsWith('msg_sim_'),
  });
  if (costUsd !== undefined) span.setAttribute('headspace.cost.usd', costUsd);
  if (usage.serviceTier) span.setAttribute('headspace.llm.service_tier', usage.serviceTier);
}

function result(message: Anthropic.Message, model: string): LlmResult {
  return { message, usage: normaliseUsage(message.usage), model, simulated: message.id.startsWith('msg_sim_') };
}

export function createLlmClient(options: LlmClientOptions): LlmClient {
  // The SDK (~5 MB of heap, 300 modules) loads with the first model call, not with the service:
  // an orchestrator that runs no session never needs it.
  let loaded: Promise<Anthropic> | undefined;
  const sdkClient = () =>
    (loaded ??= import('@anthropic-ai/sdk').then(
      // The dynamic import is typed as the ESM build; at run time it is the same class.
      (m) =>
        new (m.default as unknown as typeof Anthropic)({
          ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
          ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
          timeout: options.timeoutMs,
          maxRetries: options.maxRetries,
          ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
          ...(options.sdkTraces === false ? { openTelemetry: false as const } : {}),
        }),
    ));

  const priceTable = typeof options.prices === 'function' ? options.prices : () => options.prices as PriceTable | undefined;

  /** The `chat` span and the GenAI client metrics around one model call. */
  const observed = (
    body: Anthropic.MessageCreateParamsNonStreaming,
    effort: EffortLevel | undefined,
    stream: boolean,
    call: () => Promise<Anthropic.Message>,
  ): Promise<LlmResult> => {
    const genAi: GenAiCall = { operation: 'chat', provider: 'anthropic', requestModel: body.model };
    return withSpan(
      `chat ${body.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          ...agentAttributes(),
          'gen_ai.system': 'anthropic',
          'gen_ai.provider.name': genAi.provider,
          'gen_ai.operation.name': genAi.operation,
          'gen_ai.request.model': body.model,
          'gen_ai.request.max_tokens': body.max_tokens,
          'headspace.llm.stream': stream,
          ...(effort ? { 'headspace.llm.effort': effort } : {}),
          ...(body.thinking?.type === 'enabled' ? { 'headspace.llm.thinking_budget': body.thinking.budget_tokens } : {}),
          ...(body.output_config?.effort ? { 'headspace.llm.output_effort': body.output_config.effort } : {}),
        },
      },
      async (span) => {
        const startedAt = performance.now();
        let message: Anthropic.Message;
        try {
          message = await call();
        } catch (error) {
          const mapped = mapLlmError(error);
          recordGenAiFailure(genAi, (performance.now() - startedAt) / 1_000, mapped.code);
          throw mapped;
        }
        const r = result(message, body.model);
        recordGenAiSuccess(genAi, message.model, (performance.now() - startedAt) / 1_000, r.usage);
        const table = priceTable();
        setUsageAttributes(span, message, r.usage, table ? usageCostUsd(table, message.model, r.usage) ?? usageCostUsd(table, body.model, r.usage) : undefined);
        return r;
      },
    );
  };

  return {
    sdk: sdkClient,
    // What the SDK itself resolves: the option, else ANTHROPIC_BASE_URL, else the public API.
    baseURL: options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
    async create(request) {
      const body = toMessageParams(request);
      return observed(body, request.effort, false, async () => (await sdkClient()).messages.create(body, { signal: request.signal }));
    },
    async stream(request, handlers = {}) {
      const body = toMessageParams(request);
      return observed(body, request.effort, true, async () => {
        const stream = (await sdkClient()).messages.stream(body, { signal: request.signal });
        if (handlers.onEvent) stream.on('streamEvent', (event) => handlers.onEvent?.(event));
        if (handlers.onText) stream.on('text', (delta) => handlers.onText?.(delta));
        return stream.finalMessage();
      });
    },
    async countTokens(request) {
      const body = toMessageParams({ ...request, maxTokens: request.maxTokens ?? 1 });
      const params: Anthropic.MessageCountTokensParams = { model: body.model, messages: body.messages };
      if (body.system !== undefined) params.system = body.system;
      if (body.tools !== undefined) params.tools = body.tools as Anthropic.MessageCountTokensParams['tools'];
      if (body.tool_choice !== undefined) params.tool_choice = body.tool_choice;
      if (body.thinking !== undefined) params.thinking = body.thinking;
      try {
        const res = await (await sdkClient()).messages.countTokens(params, { signal: request.signal });
        return res.input_tokens;
      } catch (error) {
        throw mapLlmError(error);
      }
    },
  };
}
