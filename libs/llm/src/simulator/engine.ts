import type { Scenario, ScenarioBranch, ScenarioReply } from './scenario';
import { canonicalJson, estimateTokens, sha256, toolResultText, type MessagesRequest } from './request';
import type { CacheUsage } from './prompt-cache';

/** Every text a person may see starts with this label. */
export const SIMULATED_LABEL = '[simulated]';

/** What the simulator reads from a request to pick a scenario and a step. */
export interface ConversationContext {
  /** From a `Persona: <id>` line of the system prompt, else `# Team Member: <Name>`; '' when absent. */
  persona: string;
  /** From a `Situation: <id>` line of the system prompt; 'default' when absent. */
  situation: string;
  /** Number of assistant messages so far = index of the step to play. */
  assistantTurns: number;
  /** Text of the tool_result blocks of the last user message ('' if none). */
  lastToolResult: string;
  /** Whether any tool_result of the last user message had is_error; undefined if none. */
  lastToolError: boolean | undefined;
  /** Text blocks (not tool results) of the last user message. */
  lastUserText: string;
  /** Text of the first user message: the task the conversation is about. */
  firstUserText: string;
  /** The system prompt (and any system-role messages). */
  systemText: string;
}

function systemText(system: MessagesRequest['system']): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((b) => b.text).join('\n');
}

/** The CLI puts `<system-reminder>` blocks before the task text; scenario matching sees only the task. */
export function withoutReminders(text: string): string {
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
}

function messageText(content: MessagesRequest['messages'][number]['content']): string {
  if (typeof content === 'string') return withoutReminders(content);
  return content
    .filter((b) => b.type === 'text')
    .map((b) => withoutReminders(String(b.text ?? '')))
    .filter((t) => t !== '')
    .join('\n');
}

export function readContext(req: Pick<MessagesRequest, 'system' | 'messages'>): ConversationContext {
  const systemMessages = req.messages.filter((m) => m.role === 'system').map((m) => messageText(m.content));
  const sys = [systemText(req.system), ...systemMessages].join('\n');
  const persona = (
    /^[ \t]*Persona:[ \t]*([A-Za-z0-9._-]+)[ \t]*$/im.exec(sys)?.[1] ??
    /^#[ \t]*Team Member:[ \t]*([A-Za-z0-9._-]+)[ \t]*$/im.exec(sys)?.[1] ??
    ''
  ).toLowerCase();
  const situation = /^[ \t]*Situation:[ \t]*([A-Za-z0-9._-]+)[ \t]*$/im.exec(sys)?.[1]?.toLowerCase() ?? 'default';
  const assistantTurns = req.messages.filter((m) => m.role === 'assistant').length;
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  let lastToolResult = '';
  let lastToolError: boolean | undefined;
  let lastUserText = '';
  if (lastUser) {
    if (typeof lastUser.content === 'string') lastUserText = withoutReminders(lastUser.content);
    else {
      const results = lastUser.content.filter((b) => b.type === 'tool_result');
      lastToolResult = results.map((b) => toolResultText(b)).join('\n');
      if (results.length > 0) lastToolError = results.some((b) => b.is_error === true);
      lastUserText = messageText(lastUser.content);
    }
  }
  const firstUser = req.messages.find((m) => m.role === 'user');
  const firstUserText = firstUser === undefined ? '' : messageText(firstUser.content);
  return { persona, situation, assistantTurns, lastToolResult, lastToolError, lastUserText, firstUserText, systemText: sys };
}

/**
 * The most specific scenario for the conversation: one whose `prompt` regex matches the first user
 * message (it names the very task) beats any without; then exact persona and situation, exact
 * persona with situation `*`, persona `*` with the exact situation, `*`/`*`. A scenario whose
 * `prompt` does not match is never chosen. Remaining ties go to the earlier scenario in the list
 * (extra scenario directories come first). Failing all, the scenario with id `default`.
 */
export function selectScenario(scenarios: readonly Scenario[], persona: string, situation: string, firstUserText = ''): Scenario | undefined {
  let best: { s: Scenario; score: number } | undefined;
  for (const s of scenarios) {
    const p = s.persona === persona ? 4 : s.persona === '*' ? 0 : -1;
    const q = s.situation === situation ? 2 : s.situation === '*' ? 0 : -1;
    if (p < 0 || q < 0) continue;
    if (s.prompt !== undefined && !new RegExp(s.prompt, 'i').test(firstUserText)) continue;
    const score = p + q + (s.prompt !== undefined ? 8 : 0);
    if (!best || score > best.score) best = { s, score };
  }
  return best?.s ?? scenarios.find((s) => s.id === 'default');
}

function branchMatches(b: ScenarioBranch, ctx: ConversationContext): boolean {
  if (b.tool_result !== undefined && !new RegExp(b.tool_result, 'i').test(ctx.lastToolResult)) return false;
  if (b.tool_error !== undefined && ctx.lastToolError !== b.tool_error) return false;
  if (b.user_text !== undefined && !new RegExp(b.user_text, 'i').test(ctx.lastUserText)) return false;
  if (b.system_text !== undefined && !new RegExp(b.system_text, 'i').test(ctx.systemText)) return false;
  return true;
}

export interface PickedReply {
  reply: ScenarioReply;
  /** Where it came from, e.g. `steps.2.when.0` (sent as header x-headspace-scenario-step). */
  source: string;
}

const EXHAUSTED: ScenarioReply = { text: 'Nothing further is scripted for this conversation.' };

/** Interrupts first, then the step for this turn (its first matching branch, else itself). */
export function pickReply(scenario: Scenario, ctx: ConversationContext): PickedReply {
  for (const [i, b] of (scenario.interrupts ?? []).entries()) {
    if (branchMatches(b, ctx)) return { reply: b, source: `interrupts.${i}` };
  }
  const step = scenario.steps[ctx.assistantTurns];
  if (!step) return { reply: scenario.exhausted ?? EXHAUSTED, source: 'exhausted' };
  for (const [i, b] of (step.when ?? []).entries()) {
    if (branchMatches(b, ctx)) return { reply: b, source: `steps.${ctx.assistantTurns}.when.${i}` };
  }
  return { reply: step, source: `steps.${ctx.assistantTurns}` };
}

// ---------- building the response ----------

export type SimContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string; citations: null }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface SimUsage extends CacheUsage {
  output_tokens: number;
  service_tier: 'standard';
}

export interface SimMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: SimContentBlock[];
  stop_reason: string;
  stop_sequence: null;
  usage: SimUsage;
}

const TEMPLATE_LIMIT = 300;

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (whole, name: string) => {
    const v = vars[name];
    if (v === undefined) return whole;
    return v.length > TEMPLATE_LIMIT ? `${v.slice(0, TEMPLATE_LIMIT)}…` : v;
  });
}

function fillDeep(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') return fill(value, vars);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, vars));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, vars)]));
  }
  return value;
}

export function label(text: string): string {
  return text.startsWith(SIMULATED_LABEL) ? text : `${SIMULATED_LABEL} ${text}`;
}

/** `output_config.effort` (or a top-level `effort`), as the CLI sends it; undefined when absent. */
function requestEffort(req: MessagesRequest): string | undefined {
  const r = req as { effort?: unknown; output_config?: { effort?: unknown } };
  const effort = r.output_config?.effort ?? r.effort;
  return typeof effort === 'string' ? effort : undefined;
}

/**
 * Scripted thinking is written at medium effort; at `low` only its first sentence is kept. Higher
 * efforts cannot invent more reasoning than the script holds, so they keep it whole.
 */
export function atEffort(thinking: string, effort: string | undefined): string {
  if (effort !== 'low') return thinking;
  return /^[\s\S]*?[.!?](?=\s|$)/.exec(thinking)?.[0] ?? thinking;
}

/** The tool `claude --json-schema` offers; its input is the run's structured result. */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

function structuredOutputSent(req: MessagesRequest): boolean {
  return req.messages.some(
    (m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use' && b.name === STRUCTURED_OUTPUT_TOOL),
  );
}

/**
 * The smallest value a JSON schema accepts, for scripts without a `structured` payload: required
 * properties only, first enum/const value, minimum lengths and bounds. Honest for the plain schemas
 * runners send; combinators other than anyOf/oneOf (first branch) and allOf (merged) are not solved.
 */
export function minimalValue(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('default' in s) return s.default;
  const anyOf = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length > 0) return minimalValue(anyOf[0]);
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part) => minimalValue(part)).filter((v) => v && typeof v === 'object'));
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      const min = typeof s.minLength === 'number' ? s.minLength : 0;
      return '[simulated]'.padEnd(min, '.');
    }
    case 'integer':
    case 'number': {
      if (typeof s.minimum === 'number') return type === 'integer' ? Math.ceil(s.minimum) : s.minimum;
      if (typeof s.exclusiveMinimum === 'number') return Math.floor(s.exclusiveMinimum) + 1;
      return 0;
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: min }, () => minimalValue(s.items));
    }
    default: {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(required.map((k) => [k, minimalValue(props[k])]));
    }
  }
}

/** Hash of the request without the transport flag: the same conversation gives the same ids. */
export function requestHash(req: MessagesRequest): string {
  const { stream: _s, ...rest } = req;
  return sha256(canonicalJson(rest));
}

export function buildMessage(
  req: MessagesRequest,
  picked: PickedReply,
  ctx: ConversationContext,
  cacheUsage: CacheUsage,
): SimMessage {
  const hash = requestHash(req);
  const reply = picked.reply;
  const vars = {
    persona: ctx.persona || 'unknown',
    situation: ctx.situation,
    model: req.model,
    last_tool_result: ctx.lastToolResult.trim(),
    last_user_text: ctx.lastUserText.trim(),
    turn: String(ctx.assistantTurns),
  };
  const thinkingOn = req.thinking !== undefined && req.thinking.type !== 'disabled';
  const content: SimContentBlock[] = [];
  // `display: "omitted"` asks for the signed block without its text, as the API does.
  const thinkingOmitted = (req.thinking as { display?: string } | undefined)?.display === 'omitted';
  if (reply.thinking !== undefined && thinkingOn) {
    content.push({
      type: 'thinking',
      thinking: thinkingOmitted ? '' : label(atEffort(fill(reply.thinking, vars), requestEffort(req))),
      signature: `sim_sig_${sha256(`${hash}:thinking`).slice(0, 32)}`,
    });
  }
  if (reply.text !== undefined) content.push({ type: 'text', text: label(fill(reply.text, vars)), citations: null });
  for (const [i, t] of (reply.tool_use ?? []).entries()) {
    content.push({
      type: 'tool_use',
      id: `toolu_sim_${sha256(`${hash}:tool:${i}`).slice(0, 24)}`,
      name: t.name,
      input: fillDeep(t.input, vars) as Record<string, unknown>,
    });
  }
  const structuredTool = req.tools?.find((t) => t.name === STRUCTURED_OUTPUT_TOOL);
  if (structuredTool && !reply.tool_use?.length && reply.stop_reason === undefined && !structuredOutputSent(req)) {
    content.push({
      type: 'tool_use',
      id: `toolu_sim_${sha256(`${hash}:structured`).slice(0, 24)}`,
      name: STRUCTURED_OUTPUT_TOOL,
      input: (reply.structured
        ? fillDeep(reply.structured, vars)
        : minimalValue(structuredTool.input_schema ?? { type: 'object' })) as Record<string, unknown>,
    });
  }
  let stopReason = reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');

  const outputOf = (blocks: SimContentBlock[]) =>
    blocks.reduce((sum, b) => {
      if (b.type === 'text') return sum + estimateTokens(b.text);
      if (b.type === 'thinking') return sum + estimateTokens(b.thinking);
      return sum + estimateTokens(`${b.name}${JSON.stringify(b.input)}`);
    }, 0);
  let finalContent = content;
  if (outputOf(content) > req.max_tokens) {
    // Like the API: stop where the budget runs out, dropping unfinished tool calls.
    let left = req.max_tokens;
    finalContent = [];
    for (const b of content) {
      if (b.type === 'tool_use' || left <= 0) break;
      const text = b.type === 'text' ? b.text : b.thinking;
      const cut = text.slice(0, left * 4);
      finalContent.push(b.type === 'text' ? { ...b, text: cut } : { ...b, thinking: cut });
      left -= estimateTokens(cut);
    }
    stopReason = 'max_tokens';
  }

  const override = reply.usage ?? {};
  return {
    id: `msg_sim_${hash.slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model: req.model,
    content: finalContent,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      ...cacheUsage,
      input_tokens: override.input_tokens ?? cacheUsage.input_tokens,
      cache_creation_input_tokens: override.cache_creation_input_tokens ?? cacheUsage.cache_creation_input_tokens,
      cache_read_input_tokens: override.cache_read_input_tokens ?? cacheUsage.cache_read_input_tokens,
      output_tokens: override.output_tokens ?? Math.max(1, outputOf(finalContent)),
      service_tier: 'standard',
    },
  };
}

// ---------- SSE ----------

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The exact event sequence of a streamed Messages API response. */
export function streamEvents(message: SimMessage): SseEvent[] {
  const { content, usage } = message;
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) =>
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    if (block.type === 'text') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const c of chunks(block.text, 24)) delta({ type: 'text_delta', text: c });
    } else if (block.type === 'thinking') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      });
      for (const c of chunks(block.thinking, 24)) delta({ type: 'thinking_delta', thinking: c });
      delta({ type: 'signature_delta', signature: block.signature });
    } else {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
      });
      delta({ type: 'input_json_delta', partial_json: '' });
      for (const c of chunks(JSON.stringify(block.input), 16)) delta({ type: 'input_json_delta', partial_json: c });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export function formatSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
