import { issuesOf, reflectionSchema, type FieldIssue, type Reflection } from '@headspace/contracts';

/**
 * Reading the reflection out of a model's final text (seed 001 "Reflection Schema"). The model
 * may wrap the JSON in prose or a ```json fence; we try the whole text, then fenced blocks, then
 * every balanced top-level `{…}`, last first (the reflection closes the session).
 */
export type ReflectionParse =
  | { ok: true; reflection: Reflection }
  | { ok: false; reason: 'no-json' | 'invalid-json' | 'schema'; issues: FieldIssue[]; message: string };

function balancedObjects(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (ch === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) found.push(text.slice(start, i + 1));
    }
  }
  return found;
}

function candidates(text: string): string[] {
  const out = [text.trim()];
  const fences = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)\n?```/g)].map((m) => m[1].trim());
  out.push(...fences.reverse());
  out.push(...balancedObjects(text).reverse());
  return out.filter((c, i) => c.startsWith('{') && out.indexOf(c) === i);
}

export function parseReflection(text: string): ReflectionParse {
  const found = candidates(text);
  if (found.length === 0) return { ok: false, reason: 'no-json', issues: [{ field: '(root)', message: 'no JSON object found' }], message: 'no JSON object found in the final message' };
  let firstSchemaFailure: { issues: FieldIssue[] } | undefined;
  let parsedAny = false;
  for (const candidate of found) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    parsedAny = true;
    const result = reflectionSchema.safeParse(value);
    if (result.success) return { ok: true, reflection: result.data };
    firstSchemaFailure ??= { issues: issuesOf(result.error) };
  }
  if (!parsedAny) return { ok: false, reason: 'invalid-json', issues: [{ field: '(root)', message: 'JSON does not parse' }], message: 'the JSON in the final message does not parse' };
  const issues = firstSchemaFailure?.issues ?? [];
  return { ok: false, reason: 'schema', issues, message: `reflection does not match the schema: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}` };
}

export const MAX_REFLECTION_ATTEMPTS = 2;

export type ReflectionOutcome =
  | { action: 'accept'; reflection: Reflection; attempt: number }
  /** Send `prompt` to the same session and call again with attempt + 1. */
  | { action: 'ask-again'; prompt: string; issues: FieldIssue[]; attempt: number }
  /** Give up: record the session's reflection as malformed (sessionReflected with malformed: true, raw). */
  | { action: 'record-malformed'; raw: string; issues: FieldIssue[]; attempt: number };

/** The prompt that asks a session to correct its reflection. */
export function reflectionRetryPrompt(issues: FieldIssue[]): string {
  return [
    'Your reflection could not be used: it must be one JSON object matching the reflection schema.',
    ...issues.slice(0, 20).map((i) => `- ${i.field}: ${i.message}`),
    'Reply with only the corrected JSON object (task_result, reflection, suggested_learnings, follow_up).',
  ].join('\n');
}

/**
 * One step of the reflection exchange: the first malformed answer asks again, the second is
 * recorded as malformed (attempt numbers start at 1).
 */
export function evaluateReflection(text: string, attempt: number): ReflectionOutcome {
  const parsed = parseReflection(text);
  if (parsed.ok) return { action: 'accept', reflection: parsed.reflection, attempt };
  if (attempt < MAX_REFLECTION_ATTEMPTS) return { action: 'ask-again', prompt: reflectionRetryPrompt(parsed.issues), issues: parsed.issues, attempt };
  return { action: 'record-malformed', raw: text.slice(0, 50_000), issues: parsed.issues, attempt };
}
