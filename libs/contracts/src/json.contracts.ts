import { z } from 'zod';
import { ValidationError } from './errors/validation-error';

/**
 * Free-form JSON (approval payloads, model output kept whole) is bounded: JSON.stringify recurses,
 * and a value nested a few thousand levels deep overflows the stack wherever it is serialised next
 * (a size check, the event append, a NATS reply). Every walk here is iterative.
 */
export interface JsonBounds {
  /** Containers nested inside the value; a flat object is depth 1. */
  maxDepth: number;
  /** UTF-8 bytes of the value's JSON text. */
  maxBytes: number;
}

/** Free-form JSON that arrives through the API. */
export const API_JSON_BOUNDS: JsonBounds = { maxDepth: 32, maxBytes: 65_536 };
/** Free-form JSON a model returns (a reflection's output: specs, task lists, reports). */
export const MODEL_JSON_BOUNDS: JsonBounds = { maxDepth: 64, maxBytes: 1_048_576 };

type Segment = string | number;

/** The first place where the value breaks its bounds, or undefined. Checks depth before it serialises. */
export function jsonBoundsIssue(value: unknown, bounds: JsonBounds): { path: Segment[]; message: string } | undefined {
  const stack: Array<{ value: unknown; depth: number; path: Segment[] }> = [{ value, depth: 0, path: [] }];
  while (stack.length) {
    const item = stack.pop() as (typeof stack)[number];
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > bounds.maxDepth) return { path: item.path.slice(0, 1), message: `must nest at most ${bounds.maxDepth} levels` };
    for (const [key, child] of Object.entries(item.value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth, path: [...item.path, Array.isArray(item.value) ? Number(key) : key] });
    }
  }
  if (new TextEncoder().encode(JSON.stringify(value) ?? '').length > bounds.maxBytes) {
    return { path: [], message: `must be at most ${bounds.maxBytes} bytes of JSON` };
  }
  return undefined;
}

/** A zod refinement (`.superRefine(withinJsonBounds(bounds))`) adding an issue at the breach. */
export function withinJsonBounds(bounds: JsonBounds) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const issue = jsonBoundsIssue(value, bounds);
    if (issue) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  };
}

/** A JSON object with any keys, bounded in depth and size; a breach is a validation issue naming the field. */
export function boundedJsonObject(bounds: JsonBounds = API_JSON_BOUNDS) {
  return z.record(z.string().max(200), z.unknown()).superRefine(withinJsonBounds(bounds));
}

/** Any JSON value, bounded in depth and size. */
export function boundedJson(bounds: JsonBounds = API_JSON_BOUNDS) {
  return z.unknown().superRefine(withinJsonBounds(bounds));
}

const NUL = '\u0000';

/**
 * The path of a string or object key holding U+0000 (the shallowest), or undefined. PostgreSQL text and
 * jsonb cannot hold it, so a request carrying one is refused at the boundary, not by the database.
 * Paths are built only for the one found: a body of 100,000 keys is walked in milliseconds.
 */
export function nulCharacterPath(value: unknown): string | undefined {
  type Frame = { value: object; parent?: Frame; key?: string };
  const pathOf = (frame: Frame | undefined, last: string): string => {
    const keys = [last];
    for (let f = frame; f?.key !== undefined; f = f.parent) keys.push(f.key);
    return keys.reverse().join('.').replaceAll(NUL, '\\u0000');
  };
  if (typeof value === 'string') return value.includes(NUL) ? '(root)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Frame[] = [{ value }];
  while (stack.length) {
    const frame = stack.pop() as Frame;
    const children: Frame[] = [];
    for (const key in frame.value) {
      const child = (frame.value as Record<string, unknown>)[key];
      if (key.includes(NUL) || (typeof child === 'string' && child.includes(NUL))) return pathOf(frame, key);
      if (child !== null && typeof child === 'object') children.push({ value: child, parent: frame, key });
    }
    // Reversed onto the stack: nested fields are searched in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return undefined;
}

/** Throws a ValidationError naming a field that holds U+0000. */
export function refuseNulCharacters(value: unknown, what: string, prefix?: string): void {
  const path = nulCharacterPath(value);
  if (path === undefined) return;
  const field = [prefix, path === '(root)' ? '' : path].filter(Boolean).join('.') || '(root)';
  throw new ValidationError(what, [{ field, message: 'must not contain the NUL character (U+0000)' }]);
}
