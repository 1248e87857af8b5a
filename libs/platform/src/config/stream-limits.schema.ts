import { z } from 'zod';

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4, tib: 1024 ** 4 };

/** `30d`, `12h`, `90m`, `45s`, `500ms`; `0` or unset = unlimited. Parsed to milliseconds. */
export const durationSchema = z
  .string()
  .trim()
  .regex(/^(0|\d+(ms|s|m|h|d))$/, { error: 'must be a duration such as 30d, 12h, 90m or 0 (unlimited)' })
  .transform((v) => (v === '0' ? 0 : Number(/^\d+/.exec(v)![0]) * DURATION_UNITS_MS[v.replace(/^\d+/, '')]));

/** `10GB`, `512MiB`, `1073741824`; binary units (1 GB = 1024³ bytes, as nats-server counts); `0` or unset = unlimited. */
export const byteSizeSchema = z
  .string()
  .trim()
  .regex(/^\d+\s*([kmgt]i?b?|b)?$/i, { error: 'must be a size such as 10GB, 512MB or 0 (unlimited)' })
  .transform((v) => Number(/^\d+/.exec(v)![0]) * SIZE_UNITS[v.replace(/^\d+\s*/, '').toLowerCase()])
  .refine((n) => Number.isSafeInteger(n), { error: 'is too large' });
