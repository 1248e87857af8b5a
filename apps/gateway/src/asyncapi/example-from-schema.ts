type JsonSchema = Record<string, unknown>;

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-11-26T09:30:00.000Z',
  date: '2026-11-26',
  uri: 'https://shop.example.com/hooks/headspace',
  email: 'ops@example.com',
  uuid: '0b6f7e0e-4d3a-4c1e-9f5b-2a7d8c9e1f30',
};

const STRING_CANDIDATES = ['example', 'Read', '42', 'a', '0'.repeat(32), '0'.repeat(64), '2026-11-26T09:30:00.000Z', '2026-11-26'];

const kebab = (name: string) =>
  name
    .replace(/Id$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();

function stringExample(schema: JsonSchema, name: string): string {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? Infinity;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
  const format = FORMAT_EXAMPLES[schema.format as string];
  const candidates = [format, name ? kebab(name) : undefined, ...STRING_CANDIDATES].filter((c): c is string => c !== undefined);
  const fits = (s: string) => s.length >= min && s.length <= max && (!pattern || pattern.test(s));
  const found = candidates.find(fits) ?? candidates.map((c) => c.padEnd(min, 'x')).find(fits);
  if (found === undefined) throw new Error(`no example string fits ${JSON.stringify(schema)} at "${name}"`);
  return found;
}

function numberExample(schema: JsonSchema): number {
  const integer = schema.type === 'integer';
  const step = integer ? 1 : 0.5;
  const lo = Math.max((schema.minimum as number | undefined) ?? -Infinity, ((schema.exclusiveMinimum as number | undefined) ?? -Infinity) + step);
  const hi = Math.min((schema.maximum as number | undefined) ?? Infinity, ((schema.exclusiveMaximum as number | undefined) ?? Infinity) - step);
  const preferred = 1;
  if (preferred >= lo && preferred <= hi) return preferred;
  return Number.isFinite(lo) ? lo : hi;
}

/**
 * A value that satisfies a JSON schema (as zod's toJSONSchema writes them): every property filled,
 * strings chosen to meet their format, pattern and length, numbers within their bounds. Readable
 * rather than random: an id-like string is named after its property (`runId` → `run`).
 */
export function exampleFromSchema(schema: JsonSchema, name = ''): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) return exampleFromSchema(union.find((s) => s.type !== 'null') ?? union[0], name);
  switch (schema.type) {
    case 'string':
      return stringExample(schema, name);
    case 'integer':
    case 'number':
      return numberExample(schema);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const count = Math.max(1, (schema.minItems as number | undefined) ?? 0);
      if (schema.maxItems === 0) return [];
      return Array.from({ length: count }, () => exampleFromSchema((schema.items as JsonSchema | undefined) ?? {}, name));
    }
    case 'object': {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const value: Record<string, unknown> = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, exampleFromSchema(s, key)]));
      const extra = schema.additionalProperties;
      if (Object.keys(properties).length === 0 && extra && typeof extra === 'object') {
        const key = stringExample({ type: 'string', ...((schema.propertyNames as JsonSchema | undefined) ?? {}) }, 'key');
        value[key] = exampleFromSchema(extra as JsonSchema, key);
      }
      return value;
    }
    default:
      return {};
  }
}
