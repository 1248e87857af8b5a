import type Anthropic from '@anthropic-ai/sdk';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/**
 * Prompt-cache layers (seed 003, Requirement 11) in the order they reach the model. The API
 * builds its cache prefix as tools → system → messages, so tool schemas come first even though
 * the prompt composer thinks of them after the system prompt.
 *
 * | layer        | where             | ttl  |
 * |--------------|-------------------|------|
 * | tools        | `tools`           | 1h   |
 * | systemPrompt | `system` block(s) | 1h   |
 * | conventions  | `system` block(s) | 1h   |
 * | hooks        | `system` block(s) | 5m   |
 * | skills       | `system` block(s) | 5m   |
 * | conversation | `messages`        | none |
 *
 * The seed's `{ ttl: 3600 }` is spelled `ttl: '1h'` in the real API; 5 minutes is `'5m'`.
 */
export type CacheTtl = '1h' | '5m';
export const cachedLayerNames = ['tools', 'systemPrompt', 'conventions', 'hooks', 'skills'] as const;
export type CachedLayerName = (typeof cachedLayerNames)[number];

export const LAYER_TTL: Readonly<Record<CachedLayerName, CacheTtl>> = {
  tools: '1h',
  systemPrompt: '1h',
  conventions: '1h',
  hooks: '5m',
  skills: '5m',
};

/** The API accepts at most four blocks with cache_control per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

type TextLayer = string | readonly string[] | undefined;

export interface PromptLayers {
  /** Persona identity, skill file, learnings: the stable system prompt. */
  systemPrompt: TextLayer;
  /** Project conventions (the HEADSPACE.md / BRAINMASS.md equivalent). */
  conventions?: TextLayer;
  /** Tool schemas (built-in and team tools). */
  tools?: readonly Anthropic.Tool[];
  /** Policy and hook definitions the model should know about. */
  hooks?: TextLayer;
  /** Active skill instructions. */
  skills?: TextLayer;
  /** Conversation history: never cached, passed through untouched. */
  messages?: readonly Anthropic.MessageParam[];
}

export interface CacheBreakpoint {
  layer: CachedLayerName;
  ttl: CacheTtl;
}

export interface CachedPrompt {
  system: Anthropic.TextBlockParam[];
  tools: Anthropic.Tool[];
  messages: Anthropic.MessageParam[];
  /** The breakpoints placed, in prefix order. */
  breakpoints: CacheBreakpoint[];
}

function texts(layer: TextLayer): string[] {
  if (layer === undefined) return [];
  const list = typeof layer === 'string' ? [layer] : [...layer];
  return list.filter((t) => t.trim().length > 0);
}

/**
 * Builds `system`, `tools` and `messages` with `cache_control` on the last block of each
 * non-empty cached layer. If more than four layers are present, the breakpoint of a layer whose
 * next breakpoint has the same ttl is dropped first (the later breakpoint caches the whole prefix
 * anyway), earliest first. 1h breakpoints always precede 5m ones, as the API requires.
 */
export function buildCachedPrompt(layers: PromptLayers): CachedPrompt {
  const tools: Anthropic.Tool[] = (layers.tools ?? []).map((t) => {
    const { cache_control: _drop, ...rest } = t;
    return { ...rest };
  });
  const systemLayers: Array<{ layer: CachedLayerName; blocks: Anthropic.TextBlockParam[] }> = [];
  for (const layer of ['systemPrompt', 'conventions', 'hooks', 'skills'] as const) {
    const blocks = texts(layers[layer]).map((text): Anthropic.TextBlockParam => ({ type: 'text', text }));
    if (blocks.length > 0) systemLayers.push({ layer, blocks });
  }

  // Candidate breakpoints in prefix order: each points at the last block of its layer.
  const candidates: Array<CacheBreakpoint & { block: { cache_control?: Anthropic.CacheControlEphemeral | null } }> = [];
  if (tools.length > 0) candidates.push({ layer: 'tools', ttl: LAYER_TTL.tools, block: tools[tools.length - 1] });
  for (const { layer, blocks } of systemLayers) {
    candidates.push({ layer, ttl: LAYER_TTL[layer], block: blocks[blocks.length - 1] });
  }

  while (candidates.length > MAX_CACHE_BREAKPOINTS) {
    const i = candidates.findIndex((c, idx) => idx < candidates.length - 1 && candidates[idx + 1].ttl === c.ttl);
    candidates.splice(i === -1 ? 0 : i, 1);
  }
  assertBreakpointOrder(candidates);
  for (const c of candidates) c.block.cache_control = { type: 'ephemeral', ttl: c.ttl };

  return {
    system: systemLayers.flatMap((l) => l.blocks),
    tools,
    messages: [...(layers.messages ?? [])],
    breakpoints: candidates.map(({ layer, ttl }) => ({ layer, ttl })),
  };
}

/** Throws LLM.CACHE_LAYOUT_INVALID if a 1h breakpoint follows a 5m one or there are too many. */
export function assertBreakpointOrder(breakpoints: ReadonlyArray<{ ttl: CacheTtl }>): void {
  if (breakpoints.length > MAX_CACHE_BREAKPOINTS) {
    throw new HeadspaceError(
      ErrorCodes.llmCacheLayoutInvalid,
      `${breakpoints.length} cache breakpoints; the API accepts at most ${MAX_CACHE_BREAKPOINTS}`,
    );
  }
  let seen5m = false;
  for (const b of breakpoints) {
    if (b.ttl === '5m') seen5m = true;
    else if (seen5m) {
      throw new HeadspaceError(ErrorCodes.llmCacheLayoutInvalid, 'a 1h cache breakpoint must not follow a 5m one');
    }
  }
}
