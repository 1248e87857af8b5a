import { ValidationError } from '@headspace/contracts';
import { utf8Text } from './ingest-body';

/**
 * A Sentry envelope (https://develop.sentry.dev/sdk/data-model/envelopes/): a JSON header line,
 * then items, each a JSON header line and a payload. A payload whose header has `length` is exactly
 * that many bytes (it may hold newlines: attachments, minified JSON with \n in strings is still one
 * line); without `length` it runs to the next newline or the end.
 */
export interface SentryEnvelope {
  header: Record<string, unknown>;
  items: SentryEnvelopeItem[];
}

export interface SentryEnvelopeItem {
  type: string;
  header: Record<string, unknown>;
  payload: Buffer;
}

/** More items than any SDK puts in one envelope (events, sessions, a few attachments, a client report). */
export const MAX_ENVELOPE_ITEMS = 100;

const NEWLINE = 0x0a;

const bad = (field: string, message: string) => new ValidationError('Sentry envelope', [{ field, message }]);

function lineAt(body: Buffer, start: number): { line: Buffer; next: number } {
  const end = body.indexOf(NEWLINE, start);
  return end === -1 ? { line: body.subarray(start), next: body.length } : { line: body.subarray(start, end), next: end + 1 };
}

function jsonObjectLine(line: Buffer, field: string): Record<string, unknown> {
  const text = utf8Text(line, field).trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad(field, 'must be one line of JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(field, 'must be a JSON object');
  return value as Record<string, unknown>;
}

/** Parses the envelope's framing; the payloads stay bytes (only event items are read further). */
export function parseEnvelope(body: Buffer): SentryEnvelope {
  if (body.length === 0) throw bad('(root)', 'the envelope is empty');
  const first = lineAt(body, 0);
  const header = jsonObjectLine(first.line, 'envelope header');
  const items: SentryEnvelopeItem[] = [];
  let at = first.next;
  while (at < body.length) {
    const { line, next } = lineAt(body, at);
    // Blank lines between items (a trailing newline after a payload) carry nothing.
    if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) {
      at = next;
      continue;
    }
    const index = items.length;
    if (index >= MAX_ENVELOPE_ITEMS) throw bad(`items.${index}`, `an envelope holds at most ${MAX_ENVELOPE_ITEMS} items`);
    const itemHeader = jsonObjectLine(line, `items.${index}.header`);
    const type = itemHeader.type;
    if (typeof type !== 'string' || type === '' || type.length > 64) throw bad(`items.${index}.header.type`, 'must be a string of 1-64 characters');
    const length = itemHeader.length;
    if (length !== undefined && length !== null) {
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
        throw bad(`items.${index}.header.length`, 'must be a non-negative integer');
      }
      if (next + length > body.length) {
        throw bad(`items.${index}.header.length`, `says ${length} bytes but ${body.length - next} remain`);
      }
      items.push({ type, header: itemHeader, payload: body.subarray(next, next + length) });
      at = next + length;
      // The newline that ends a length-delimited payload is optional.
      if (body[at] === NEWLINE) at++;
    } else {
      const payload = lineAt(body, next);
      items.push({ type, header: itemHeader, payload: payload.line });
      at = payload.next;
    }
  }
  return { header, items };
}
