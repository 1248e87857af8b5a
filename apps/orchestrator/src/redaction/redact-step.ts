import { processSecretRedactor, type DeepOptions } from '@headspace/contracts';

/**
 * What the model must get back exactly as it sent it: a thinking block's signature and a redacted
 * thinking block are opaque, and the API refuses them altered.
 */
const MODEL_OPAQUE: DeepOptions = {
  keepKeys: new Set(['signature']),
  keepObject: (block) => block.type === 'redacted_thinking',
};

/**
 * A session or run step as it may be recorded: every string in it (tool results, model content,
 * hook output, errors) with secrets replaced by `[redacted:<kind>]`, its shape unchanged. Applied
 * before deciding, so the events appended, relayed to JetStream and streamed over SSE, and the
 * conversation rebuilt from them, all carry the same redacted text.
 */
export function redactStep<T>(step: T, keepKeys: readonly string[] = []): T {
  const options = keepKeys.length ? { ...MODEL_OPAQUE, keepKeys: new Set([...MODEL_OPAQUE.keepKeys!, ...keepKeys]) } : MODEL_OPAQUE;
  return processSecretRedactor().deep(step, options);
}
