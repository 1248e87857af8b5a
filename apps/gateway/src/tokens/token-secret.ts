import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits of randomness: a hash of it cannot be brute-forced, so a plain SHA-256 is enough. */
export function generateToken(): string {
  return `hst_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
