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
}

function systemText(system: MessagesRequest['system']): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((b) => b.text).join('\n');
}

export function readContext(req: Pick<MessagesRequest, 'system' | 'messages'>): ConversationContext {
  const sys = systemText(req.system);
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
    if (typeof lastUser.content === 'string') lastUserText = lastUser.content;
    else {
      const results = lastUser.content.filter((b) => b.type === 'tool_result');
      lastToolResult = results.map((b) => toolResultText(b)).join('\n');
      if (results.length > 0) lastToolError = results.some((b) => b.is_error === true);
      lastUserText = lastUser.content
        .filter((b) => b.type === 'text')
        .map((b) => String(b.text ?? ''))
        .join('\n');
    }
  }
  const firstUser = req.messages.find((m) => m.role === 'user');
  const firstUserText =
    firstUser === undefined
      ? ''
      : typeof firstUser.content === 'string'
        ? firstUser.content
        : firstUser.content
            .filter((b) => b.type === 'text')
            .map((b) => String(b.text ?? ''))
            .join('\n');
  return { persona, situation, assistantTurns, lastToolResult, lastToolError, lastUserText, firstUserText };
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
  if (reply.thinking !== undefined && thinkingOn) {
    content.push({
      type: 'thinking',
      thinking: label(fill(reply.thinking, vars)),
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
  let stopReason = reply.stop_reason ?? (reply.tool_use?.length ? 'tool_use' : 'end_turn');

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
