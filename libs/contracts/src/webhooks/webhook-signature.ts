import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How Headspace signs a webhook delivery (and how a subscriber checks it), in the shape Stripe uses:
 * `Headspace-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The
 * timestamp is signed with the body, so a captured delivery cannot be replayed outside the tolerance.
 * Several `v1=` values may appear while a secret is being rotated; any one matching is enough.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'Headspace-Signature';
export const WEBHOOK_DELIVERY_HEADER = 'Headspace-Delivery';
export const WEBHOOK_EVENT_ID_HEADER = 'Headspace-Event-Id';
export const WEBHOOK_DEFAULT_TOLERANCE_SECONDS = 300;

const hmac = (secret: string, timestamp: number, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

export function signWebhook(secret: string, body: string | Uint8Array, timestamp = Math.floor(Date.now() / 1_000), extraSecrets: readonly string[] = []): string {
  return [`t=${timestamp}`, ...[secret, ...extraSecrets].map((s) => `v1=${hmac(s, timestamp, body)}`)].join(',');
}

export type WebhookVerification = { ok: true; timestamp: number } | { ok: false; reason: 'missing' | 'malformed' | 'expired' | 'mismatch' };

export function verifyWebhook(
  secret: string,
  body: string | Uint8Array,
  header: string | undefined | null,
  options: { toleranceSeconds?: number; now?: number } = {},
): WebhookVerification {
  if (!header) return { ok: false, reason: 'missing' };
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const signatures = parts.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? '')).map(([, v]) => Buffer.from(v, 'hex'));
  if (!Number.isInteger(t) || signatures.length === 0) return { ok: false, reason: 'malformed' };
  const now = options.now ?? Math.floor(Date.now() / 1_000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? WEBHOOK_DEFAULT_TOLERANCE_SECONDS)) return { ok: false, reason: 'expired' };
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  return signatures.some((s) => timingSafeEqual(s, expected)) ? { ok: true, timestamp: t } : { ok: false, reason: 'mismatch' };
}
