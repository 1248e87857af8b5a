import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secrets a service must keep but never show (webhook secrets: Leon's notifications, the
 * gateway's subscriptions; ADR 0022): AES-256-GCM under a service key, a fresh 96-bit IV per seal,
 * a context naming the owner as associated data (a sealed secret copied onto another owner does not
 * open). The key id in front names the key that sealed it, so a rotated key is reported as such
 * instead of as tampering.
 */
export class SecretBox {
  readonly keyId: string;

  private constructor(
    private readonly key: Buffer,
    private readonly keyName: string,
  ) {
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  /** 32 bytes as 64 hex characters or base64/base64url; anything else is refused (the caller names the variable). */
  static fromKey(encoded: string, keyName = 'the key'): SecretBox {
    const value = encoded.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (key.length !== 32) throw new Error('must be 32 bytes, as 64 hex characters or base64');
    return new SecretBox(key, keyName);
  }

  seal(secret: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', this.keyId, iv, ciphertext, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string, context: string): string {
    const [version, keyId, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || !tag) throw new Error('not a sealed secret');
    if (keyId !== this.keyId) throw new Error(`sealed under key ${keyId}, ${this.keyName} is key ${this.keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
