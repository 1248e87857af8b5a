import { meter, type Attributes } from '@headspace/telemetry';
import type { LlmUsage } from './usage';

/** Bucket boundaries the GenAI semantic conventions recommend for the two client histograms. */
export const OPERATION_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
export const TOKEN_USAGE_BUCKETS = [1, 4, 16, 64, 256, 1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864];

const operationDuration = meter.createHistogram('gen_ai.client.operation.duration', {
  description: 'GenAI operation duration',
  unit: 's',
  advice: { explicitBucketBoundaries: OPERATION_DURATION_BUCKETS },
});
const tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
  description: 'Number of input and output tokens used',
  unit: '{token}',
  advice: { explicitBucketBoundaries: TOKEN_USAGE_BUCKETS },
});
const cacheTokens = meter.createCounter('headspace.llm.cache_tokens', {
  description: 'Prompt-cache tokens of model calls, read from or written to the cache',
  unit: '{token}',
});

/** The request side of a model call's metric attributes (no ids: these are metric labels). */
export interface GenAiCall {
  operation: 'chat';
  provider: string;
  requestModel: string;
}

const baseAttributes = (call: GenAiCall): Attributes => ({
  'gen_ai.operation.name': call.operation,
  'gen_ai.provider.name': call.provider,
  'gen_ai.request.model': call.requestModel,
});

/** A call that answered: its duration, input (everything the model read, cache included) and output tokens, cache tokens. */
export function recordGenAiSuccess(call: GenAiCall, responseModel: string, seconds: number, usage: LlmUsage): void {
  const attributes = { ...baseAttributes(call), 'gen_ai.response.model': responseModel };
  operationDuration.record(seconds, attributes);
  tokenUsage.record(usage.totalInputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
  tokenUsage.record(usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
  cacheTokens.add(usage.cacheReadTokens, { 'gen_ai.request.model': call.requestModel, type: 'read' });
  cacheTokens.add(usage.cacheCreationTokens, { 'gen_ai.request.model': call.requestModel, type: 'creation' });
}

/** A call that failed (after the SDK's retries): its duration, labelled with the error's code. */
export function recordGenAiFailure(call: GenAiCall, seconds: number, errorType: string): void {
  operationDuration.record(seconds, { ...baseAttributes(call), 'error.type': errorType });
}
