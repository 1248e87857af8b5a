import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'headspace-signature';

/**
 * `Headspace-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (the Stripe scheme):
 * the timestamp inside the signed text lets a receiver refuse replays older than its tolerance.
 */
export function signWebhook(body: string, secret: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmac(secret, `${unixSeconds}.${body}`)}`;
}

/** What a receiver does: recompute, compare in constant time, and refuse a stale timestamp. */
export function verifyWebhookSignature(header: string | undefined, body: string, secret: string, options: { nowSeconds: number; toleranceSeconds?: number }): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(options.nowSeconds - t) > (options.toleranceSeconds ?? 300)) return false;
  return timingSafeEqual(Buffer.from(v1, 'hex'), Buffer.from(hmac(secret, `${t}.${body}`), 'hex'));
}

const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
