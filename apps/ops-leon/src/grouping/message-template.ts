/**
 * The message with what varies between occurrences of one bug replaced by placeholders, so "order
 * 8812 not found" and "order 9921 not found" are one group. Order matters: whole URLs, emails and
 * UUIDs go before quoted values, quoted values before numbers inside them.
 */
const RULES: Array<[RegExp, string]> = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, '<url>'],
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '<email>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // Quoted values; a single quote only when it opens a value (not the apostrophe of "can't").
  [/(?<!\w)'[^'\n]*'|"[^"\n]*"|`[^`\n]*`/g, '<str>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<date>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Long hex runs with at least one digit and one letter (hashes, object ids).
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
];

/** Tokens with digits: a number, or an id when it holds two or more digits (`user_42`, `ord-8812a`); `utf8` stays. */
function templateToken(token: string): string {
  if (/^\d+(?:\.\d+)?$/.test(token)) return '<num>';
  return (token.match(/\d/g) ?? []).length >= 2 ? '<id>' : token;
}

export function templateMessage(message: string): string {
  let text = message;
  for (const [pattern, placeholder] of RULES) text = text.replace(pattern, placeholder);
  text = text.replace(/\b[\w-]*\d[\w-]*(?:\.\d+)?\b/g, templateToken);
  return text.replace(/\s+/g, ' ').trim();
}
