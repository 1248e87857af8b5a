/**
 * Pulls the first JSON object out of a model's text: a ```json fenced block if there is one,
 * else the span from the first `{` to the last `}`. Returns undefined when nothing parses. Use it
 * for reflection and handoff JSON, which the simulator (and a real model) wraps in prose.
 */
export function extractJsonObject(text: string): Record<string, unknown> | undefined {
  const candidates: string[] = [];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/i.exec(text);
  if (fenced) candidates.push(fenced[1]);
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const value: unknown = JSON.parse(c);
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}
