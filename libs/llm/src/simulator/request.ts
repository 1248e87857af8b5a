import { createHash } from 'node:crypto';
import { z } from 'zod';
import { refusesThinkingBudget } from '../client/effort';

/**
 * The subset of the Messages API request the simulator understands, validated like the real API
 * would (unknown fields pass through). Failures become 400 `invalid_request_error`.
 */
const cacheControl = z
  .object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
  .nullable()
  .optional();

const block = z.looseObject({ type: z.string().min(1), cache_control: cacheControl });
const content = z.union([z.string(), z.array(block).min(1)]);
/** Newer models (and the Claude Code CLI talking to them) put `system` entries inside `messages`; they count as system text. */
const messageRole = z.enum(['user', 'assistant', 'system']);

export const messagesRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    max_tokens: z.number().int().min(1).max(128_000),
    messages: z.array(z.looseObject({ role: messageRole, content })).min(1),
    system: z
      .union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl }))])
      .optional(),
    tools: z
      .array(
        z.looseObject({
          name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/),
          type: z.string().optional(),
          input_schema: z.record(z.string(), z.unknown()).optional(),
          cache_control: cacheControl,
        }),
      )
      .optional(),
    thinking: z
      .discriminatedUnion('type', [
        z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1024) }),
        z.looseObject({ type: z.literal('disabled') }),
        z.looseObject({ type: z.literal('adaptive') }),
        z.looseObject({ type: z.literal('between_tools') }),
      ])
      .optional(),
    temperature: z.number().min(0).max(1).optional(),
    stream: z.boolean().optional(),
    metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.thinking?.type === 'enabled' && refusesThinkingBudget(req.model)) {
      ctx.addIssue({
        code: 'custom',
        path: ['thinking', 'type'],
        message: `\`thinking.type: enabled\` is not supported on ${req.model}: use \`thinking.type: adaptive\` with \`output_config.effort\``,
      });
    }
    if (req.thinking?.type === 'enabled' && req.thinking.budget_tokens >= req.max_tokens) {
      ctx.addIssue({
        code: 'custom',
        path: ['thinking', 'budget_tokens'],
        message: '`max_tokens` must be greater than `thinking.budget_tokens`',
      });
    }
    for (const [i, tool] of (req.tools ?? []).entries()) {
      if (!tool.type && !tool.input_schema) {
        ctx.addIssue({ code: 'custom', path: ['tools', i, 'input_schema'], message: 'Field required' });
      }
    }
  });

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type RequestBlock = z.infer<typeof block>;

export const countTokensRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: messageRole, content })).min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  tools: z.array(z.looseObject({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/) })).optional(),
});

/** "messages.0.content: Field required" — the API's own style of message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const message = i.code === 'invalid_type' && /received undefined/.test(i.message) ? 'Field required' : i.message;
      return `${i.path.length ? i.path.map(String).join('.') : 'body'}: ${message}`;
    })
    .join('; ');
}

// ---------- prefix segments, tokens, hashing ----------

export interface Segment {
  /** Canonical JSON of the block without cache_control. */
  key: string;
  tokens: number;
  ttl?: '5m' | '1h';
}

/** ~4 characters a token, at least 1 for a non-empty block. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

/** Stable JSON: object keys sorted, so equal requests hash equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The text a block contributes to the token estimate. */
export function blockText(b: Record<string, unknown>): string {
  switch (b.type) {
    case 'text':
      return String(b.text ?? '');
    case 'thinking':
      return String(b.thinking ?? '');
    case 'tool_use':
      return `${String(b.name ?? '')} ${canonicalJson(b.input ?? {})}`;
    case 'tool_result':
      return toolResultText(b);
    case 'image':
    case 'document':
      return 'x'.repeat(6_000); // a flat ~1,500 tokens
    default: {
      const { cache_control: _c, ...rest } = b;
      return canonicalJson(rest);
    }
  }
}

export function toolResultText(b: Record<string, unknown>): string {
  const c = b.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((x: Record<string, unknown>) => (x?.type === 'text' ? String(x.text ?? '') : blockText(x ?? {})))
      .join('\n');
  }
  return '';
}

function segment(b: Record<string, unknown>, text: string): Segment {
  const { cache_control, ...rest } = b as Record<string, unknown> & { cache_control?: { ttl?: '5m' | '1h' } | null };
  return {
    key: canonicalJson(rest),
    tokens: estimateTokens(text),
    ...(cache_control ? { ttl: cache_control.ttl ?? '5m' } : {}),
  };
}

/** The request in cache-prefix order: tools, then system, then message content blocks. */
export function requestSegments(req: Pick<MessagesRequest, 'tools' | 'system' | 'messages'>): Segment[] {
  const out: Segment[] = [];
  for (const tool of req.tools ?? []) {
    const { cache_control: _c, ...rest } = tool;
    out.push(segment(tool, canonicalJson(rest)));
  }
  if (typeof req.system === 'string') out.push(segment({ type: 'text', text: req.system }, req.system));
  else for (const s of req.system ?? []) out.push(segment(s, s.text));
  for (const m of req.messages) {
    if (typeof m.content === 'string') {
      out.push(segment({ role: m.role, type: 'text', text: m.content }, m.content));
    } else {
      for (const b of m.content) out.push(segment({ role: m.role, ...b }, blockText(b)));
    }
  }
  return out;
}

/** The API rejects more than 4 breakpoints and a 1h breakpoint after a 5m one. */
export function cacheControlProblem(segments: Segment[]): string | undefined {
  const ttls = segments.filter((s) => s.ttl).map((s) => s.ttl);
  if (ttls.length > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${ttls.length}.`;
  const firstFive = ttls.indexOf('5m');
  if (firstFive !== -1 && ttls.slice(firstFive).includes('1h')) {
    return 'cache_control: a ttl="1h" cache_control block must not come after a ttl="5m" cache_control block';
  }
  return undefined;
}
