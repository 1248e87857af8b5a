import { z } from 'zod';
import type { HeadspaceTool } from './headspace-tool';

/** The input every write tool takes beside its own. */
export const IDEMPOTENCY_KEY_INPUT = 'idempotency_key';

/** What REST accepts as an `Idempotency-Key` (1–200 visible ASCII characters). */
const idempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,200}$/, 'an idempotency_key is 1-200 visible ASCII characters (no spaces)')
  .optional()
  .describe(
    'Optional key of your choosing for this one write (e.g. a UUID), sent as the Idempotency-Key header: send the same key when retrying this call (after a timeout or a lost answer) and it is done once, the retry getting the first answer. Never reuse a key for a different call. Without it, each call is a new command.',
  );

/**
 * A write tool's call, made retry-safe: it takes an optional `idempotency_key`, sent as the
 * `Idempotency-Key` header, so a client's retry reaches REST as the same command (answered with its
 * first result) rather than a new one. Absent, no key is derived: each call stays a new command, as
 * a REST call without the header is. Reads are left as they are.
 */
export function withIdempotencyKey(tool: HeadspaceTool): HeadspaceTool {
  if (tool.readOnly) return tool;
  if (IDEMPOTENCY_KEY_INPUT in tool.input) throw new Error(`tool ${tool.name} already has an ${IDEMPOTENCY_KEY_INPUT} input`);
  return {
    ...tool,
    input: { ...tool.input, [IDEMPOTENCY_KEY_INPUT]: idempotencyKey },
    request: ({ [IDEMPOTENCY_KEY_INPUT]: key, ...args }) => ({ ...tool.request(args), ...(typeof key === 'string' ? { idempotencyKey: key } : {}) }),
  };
}
