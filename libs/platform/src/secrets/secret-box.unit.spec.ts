import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box';

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
