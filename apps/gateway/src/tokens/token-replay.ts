import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** A retried POST /tokens answers its first body for this long (Stripe keeps idempotent answers a day). */
export const TOKEN_REPLAY_WINDOW_SECONDS = 24 * 60 * 60;

/** Who asked, with which key: a replay is only for the same caller retrying the same request. */
export interface TokenRequestKey {
  issuerTokenId: string;
  idempotencyKey: string;
  /** The caller's own bearer token: only a hash of it is stored, so the seal needs the caller to open. */
  issuerToken: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function sealingKey(key: TokenRequestKey): Buffer {
  const salt = `${key.issuerTokenId}\n${key.idempotencyKey}`;
  return Buffer.from(hkdfSync('sha256', key.issuerToken, salt, 'headspace api-token replay v1', 32));
}

/** AES-256-GCM of the new token's plaintext, bound to its id: iv | tag | ciphertext. */
export function sealToken(plaintext: string, tokenId: string, key: TokenRequestKey): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key), iv).setAAD(Buffer.from(tokenId));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The plaintext, or undefined when this caller cannot open the seal. */
export function openToken(sealed: Buffer, tokenId: string, key: TokenRequestKey): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(key), sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(tokenId));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** SHA-256 of the request's meaning (fields in a fixed order), to refuse a key reused for another request. */
export function requestFingerprint(request: { name: string; role: string; teams: unknown; projects: unknown }): Buffer {
  return createHash('sha256').update(JSON.stringify([request.name, request.role, request.teams, request.projects])).digest();
}
