import { createHash } from 'node:crypto';

/**
 * A key is the caller's own: two tokens sending the same Idempotency-Key to the same command are two
 * commands. The command id is derived from the token and the key, so a retry with the same token
 * finds the first answer and another token's key can neither replay nor suppress it.
 */
export function commandIdFor(principal: { tokenId: string } | undefined, key: string): string {
  const digest = createHash('sha256').update(`${principal?.tokenId ?? 'anonymous'}\n${key}`).digest('base64url');
  return `idem-${digest.slice(0, 32)}`;
}
