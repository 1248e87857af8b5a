import { verifyWebhook, WEBHOOK_SIGNATURE_HEADER } from '@headspace/contracts';
import type { HeadspaceEvent } from './headspace-event';
import { WebhookVerificationError } from './subscriber-errors';

/** Request headers as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain object give them. */
export type RequestHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds the signed timestamp may differ from now (default 300). */
  toleranceSeconds?: number;
  /** Unix seconds, for tests. */
  now?: number;
}

const messages = {
  missing: `no ${WEBHOOK_SIGNATURE_HEADER} header`,
  malformed: `the ${WEBHOOK_SIGNATURE_HEADER} header is not t=<seconds>,v1=<hex>`,
  expired: 'the signed timestamp is outside the tolerance (a replayed or delayed delivery)',
  mismatch: 'no signature matches the body with this secret',
} as const;

/**
 * Checks a webhook delivery's `Headspace-Signature` against the raw body (the exact bytes received:
 * a re-serialised JSON does not verify) and returns the CloudEvent it carries, or the reason it
 * must be rejected. Nothing of the body is trusted before the signature is.
 */
export function verifyWebhookRequest(
  secret: string,
  rawBody: string | Uint8Array,
  headers: RequestHeaders,
  options: VerifyWebhookOptions = {},
): HeadspaceEvent | WebhookVerificationError {
  const verdict = verifyWebhook(secret, rawBody, headerOf(headers, WEBHOOK_SIGNATURE_HEADER), options);
  if (!verdict.ok) return new WebhookVerificationError(verdict.reason, `Webhook signature rejected: ${messages[verdict.reason]}`);
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    event = undefined;
  }
  if (!isCloudEvent(event)) return new WebhookVerificationError('not-a-cloud-event', 'The signed body is not a CloudEvents 1.0 JSON event');
  return event;
}

function headerOf(headers: RequestHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() === wanted) return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

function isCloudEvent(value: unknown): value is HeadspaceEvent {
  if (!value || typeof value !== 'object') return false;
  const e = value as Record<string, unknown>;
  return e.specversion === '1.0' && typeof e.id === 'string' && typeof e.source === 'string' && typeof e.type === 'string' && e.type.startsWith('headspace.');
}
