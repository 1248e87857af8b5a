import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './webhook-signature';

describe('webhook signatures', () => {
  const body = JSON.stringify({ type: 'ops.group.transition', groupId: 'grp_1' });

  it('verify with the secret and the signed timestamp, and only so', () => {
    const header = signWebhook(body, 'secret-1', 1_800_000_000);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(header, body, 'secret-1', { nowSeconds: 1_800_000_010 })).toBe(true);
    expect(verifyWebhookSignature(header, body, 'secret-2', { nowSeconds: 1_800_000_010 })).toBe(false);
    expect(verifyWebhookSignature(header, `${body} `, 'secret-1', { nowSeconds: 1_800_000_010 })).toBe(false);
    expect(verifyWebhookSignature(header.replace('t=1800000000', 't=1800000001'), body, 'secret-1', { nowSeconds: 1_800_000_010 })).toBe(false);
    expect(verifyWebhookSignature(header, body, 'secret-1', { nowSeconds: 1_800_001_000 })).toBe(false);
  });
});
