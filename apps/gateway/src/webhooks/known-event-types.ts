import * as contracts from '@headspace/contracts';
import type { EventDefinition } from '@headspace/contracts';

const isEventDefinition = (value: unknown): value is EventDefinition =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as EventDefinition).type === 'string' &&
  typeof (value as EventDefinition).category === 'string' && typeof (value as EventDefinition).service === 'string' && typeof (value as EventDefinition).schemaVersion === 'number';

/** Every event type the contracts define (read from their exports, so a new event is known without a list to keep). */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set((Object.values(contracts) as unknown[]).filter(isEventDefinition).map((d) => d.type));
export const KNOWN_CATEGORIES: ReadonlySet<string> = new Set([...KNOWN_EVENT_TYPES].map((t) => t.slice(0, t.indexOf('.'))));

/** `*` (everything), an exact known type, or `<known category>.*`. */
export function isKnownEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return KNOWN_CATEGORIES.has(pattern.slice(0, -2));
  return KNOWN_EVENT_TYPES.has(pattern);
}

export function matchesEventPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}
