import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ContextCategory } from '@headspace/contracts';
import { writeFileAtomic } from './atomic-write';
import { classifyContextItem, tiersFor, type ContextItemInput, type StorageTier } from './triage';
import { TurnTokenCounter, type ApiUsage } from './tokens';
import { resolveContextThresholds, type ContextThresholds } from './thresholds';

export interface TrackedContextItem {
  id: string;
  content: string;
  source: ContextItemInput['source'];
  toolName?: string;
  category: ContextCategory;
  kind: string;
  tokens: number;
  tiers: StorageTier[];
  addedTurn: number;
  lastReferencedTurn: number;
  referenceCount: number;
}

export interface StalenessDistribution {
  /** score < 2 */
  fresh: number;
  /** 2 ≤ score < 10 */
  aging: number;
  /** score ≥ 10 */
  stale: number;
}

/** Requirement 2.8 health metrics. */
export interface ContextHealth {
  freePercent: number;
  totalTokens: number;
  windowTokens: number;
  preservedTokens: number;
  compressibleTokens: number;
  ephemeralTokens: number;
  stalenessDistribution: StalenessDistribution;
  cacheHitRate: number;
  handoffPercent: number;
  shouldHandoff: boolean;
}

export interface ContextWindowOptions {
  windowTokens: number;
  handoffPercent?: number;
  env?: Record<string, string | undefined>;
}

/** Seed 003 2.3: the session file keeps PRESERVE_VERBATIM and PRESERVE_STRUCTURED items across sessions. */
export const SESSION_FILE = '.headspace/session-state.json';

const sessionFileSchema = z.object({
  version: z.literal(1),
  items: z.array(
    z.object({
      id: z.string(),
      content: z.string(),
      source: z.enum(['user', 'assistant', 'tool_use', 'tool_result', 'system']),
      toolName: z.string().optional(),
      category: z.enum(['PRESERVE_VERBATIM', 'PRESERVE_STRUCTURED']),
      kind: z.string(),
      addedTurn: z.number().int(),
    }),
  ),
});

/**
 * The working memory of one agent session: every item added is triaged, its tokens counted per
 * turn, its references tracked for staleness (turns since last reference × 1/reference count).
 */
export class ContextWindow {
  readonly thresholds: ContextThresholds;
  readonly tokens = new TurnTokenCounter();
  private readonly items = new Map<string, TrackedContextItem>();
  private currentTurn = 0;
  private seq = 0;

  constructor(opts: ContextWindowOptions) {
    this.thresholds = resolveContextThresholds(opts);
  }

  get turn(): number {
    return this.currentTurn;
  }

  /** Start a new turn (turn numbers only grow). */
  beginTurn(turn = this.currentTurn + 1): number {
    this.currentTurn = Math.max(this.currentTurn, turn);
    return this.currentTurn;
  }

  add(input: ContextItemInput & { id?: string }): TrackedContextItem {
    const { category, kind } = classifyContextItem(input);
    const id = input.id ?? `item-${++this.seq}`;
    const item: TrackedContextItem = {
      id,
      content: input.content,
      source: input.source,
      toolName: input.toolName,
      category,
      kind,
      tokens: this.tokens.addEstimate(this.currentTurn, input.content),
      tiers: tiersFor(category),
      addedTurn: this.currentTurn,
      lastReferencedTurn: this.currentTurn,
      referenceCount: 1,
    };
    this.items.set(id, item);
    return item;
  }

  /** The model (or a tool) used this item again. */
  reference(id: string): void {
    const item = this.items.get(id);
    if (!item) return;
    item.referenceCount += 1;
    item.lastReferencedTurn = this.currentTurn;
  }

  /** The API's usage numbers for this turn's call; they replace our estimate of the context size. */
  recordUsage(usage: ApiUsage, turn = this.currentTurn): void {
    this.tokens.recordUsage(turn, usage);
  }

  list(category?: ContextCategory): TrackedContextItem[] {
    const all = [...this.items.values()];
    return category ? all.filter((i) => i.category === category) : all;
  }

  staleness(item: TrackedContextItem): number {
    return (this.currentTurn - item.lastReferencedTurn) * (1 / item.referenceCount);
  }

  usedTokens(): number {
    return this.tokens.contextTokens();
  }

  shouldHandoff(): boolean {
    return this.usedTokens() >= this.thresholds.handoffAtTokens;
  }

  /**
   * Requirement 2.7 context editing: drop tool results and ephemeral items not referenced in the
   * last `turns` turns. User messages and preserved items stay. Returns what was cleared.
   */
  clearStale(turns: number): TrackedContextItem[] {
    const cleared: TrackedContextItem[] = [];
    for (const item of this.items.values()) {
      const clearable = item.category === 'EPHEMERAL' || (item.source === 'tool_result' && item.category === 'COMPRESS_AGGRESSIVE');
      if (clearable && this.currentTurn - item.lastReferencedTurn > turns) {
        this.items.delete(item.id);
        cleared.push(item);
      }
    }
    return cleared;
  }

  health(): ContextHealth {
    const sum = (pred: (i: TrackedContextItem) => boolean) => this.list().filter(pred).reduce((s, i) => s + i.tokens, 0);
    const distribution: StalenessDistribution = { fresh: 0, aging: 0, stale: 0 };
    for (const item of this.items.values()) {
      const s = this.staleness(item);
      if (s < 2) distribution.fresh += 1;
      else if (s < 10) distribution.aging += 1;
      else distribution.stale += 1;
    }
    const total = this.usedTokens();
    const window = this.thresholds.windowTokens;
    return {
      freePercent: Math.max(0, Math.round(((window - total) / window) * 10_000) / 100),
      totalTokens: total,
      windowTokens: window,
      preservedTokens: sum((i) => i.category === 'PRESERVE_VERBATIM' || i.category === 'PRESERVE_STRUCTURED'),
      compressibleTokens: sum((i) => i.category === 'COMPRESS_AGGRESSIVE'),
      ephemeralTokens: sum((i) => i.category === 'EPHEMERAL'),
      stalenessDistribution: distribution,
      cacheHitRate: this.tokens.cacheHitRate(),
      handoffPercent: this.thresholds.handoffPercent,
      shouldHandoff: total >= this.thresholds.handoffAtTokens,
    };
  }

  /** Tier 2: write the preserved items to the session file (PreCompact / before handoff). */
  async saveSessionFile(path: string): Promise<number> {
    const items = this.list().filter((i) => i.tiers.includes('session-file'));
    const body = {
      version: 1 as const,
      items: items.map((i) => ({ id: i.id, content: i.content, source: i.source, toolName: i.toolName, category: i.category, kind: i.kind, addedTurn: i.addedTurn })),
    };
    await writeFileAtomic(path, JSON.stringify(body, null, 2) + '\n');
    return items.length;
  }

  /** SessionStart: load preserved items back into working memory. Missing file → 0. */
  async loadSessionFile(path: string): Promise<number> {
    let raw: string;
    try {
      raw = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    const parsed = sessionFileSchema.parse(JSON.parse(raw));
    for (const i of parsed.items) {
      this.add({ id: i.id, content: i.content, source: i.source, toolName: i.toolName, category: i.category, kind: i.kind });
    }
    return parsed.items.length;
  }
}
