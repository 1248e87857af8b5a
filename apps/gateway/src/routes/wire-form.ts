const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/**
 * The request as the client wrote it, minus the keys its schema dropped: the contract's `z.input`
 * form, which is what crosses NATS. The serving side parses it with the same contract, so its
 * transforms, defaults and coercions must be applied there, once — forwarding the parsed output
 * would apply them twice (a USD amount already turned into micros would be multiplied by 10⁶ again).
 * Parsing without transforms is what tells a bad request apart at the edge; this only chooses what
 * is sent afterwards.
 */
export function wireForm(raw: unknown, parsed: unknown): unknown {
  if (isPlainObject(raw) && isPlainObject(parsed)) {
    return Object.fromEntries(
      Object.entries(raw)
        .filter(([key]) => Object.hasOwn(parsed, key))
        .map(([key, value]) => [key, wireForm(value, parsed[key])]),
    );
  }
  if (Array.isArray(raw) && Array.isArray(parsed) && raw.length === parsed.length) return raw.map((value, i) => wireForm(value, parsed[i]));
  return raw;
}
