import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box';
import { signWebhook, verifyWebhookSignature } from './webhook-signature';

describe('SecretBox', () => {
  const box = SecretBox.fromKey(randomBytes(32).toString('hex'));

  it('seals so that the secret is not in the sealed text, and opens it again', () => {
    const sealed = box.seal('whsec_very-secret-value', 'webhook:shop:ops');
    expect(sealed).not.toContain('very-secret');
    expect(sealed.startsWith(`v1.${box.keyId}.`)).toBe(true);
    expect(box.open(sealed, 'webhook:shop:ops')).toBe('whsec_very-secret-value');
  });

  it('does not open a sealed secret moved to another webhook, tampered with, or under another key', () => {
    const sealed = box.seal('whsec_very-secret-value', 'webhook:shop:ops');
    expect(() => box.open(sealed, 'webhook:shop:other')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'webhook:shop:ops')).toThrow();
    expect(() => SecretBox.fromKey(randomBytes(32).toString('base64')).open(sealed, 'webhook:shop:ops')).toThrow(/sealed under key/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => SecretBox.fromKey('short')).toThrow(/32 bytes/);
  });
});

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
