import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/** Short names used in persona manifests and agent definitions. */
export const modelAliases = ['opus', 'sonnet', 'haiku', 'inherit'] as const;
export type ModelAlias = (typeof modelAliases)[number];
export type ModelFamily = 'opus' | 'sonnet' | 'haiku';

export interface ModelInfo {
  id: string;
  family: ModelFamily;
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * The one table mapping aliases to concrete model ids: opus → Opus 4.6, sonnet → Sonnet 4.6,
 * haiku → Haiku 4.5. `sonnet` departs from seed 003 Req 8.4 (which names Sonnet 4.5) because
 * Sonnet 4.5 reaches end-of-life on 2026-11-30 (the SDK warns on every call to it); an explicit
 * `claude-sonnet-4-5…` id still passes through. Change a model here and nowhere else (agent
 * definitions resolve through it; the cost governor's price table carries the same aliases as data
 * and decides the model a governed call runs on, so moving an alias also needs a new price table
 * version, see the cost governor's README). Windows and output limits are the official model pages';
 * the cost governor's price table carries them for every other model the SDK names.
 */
export const MODEL_TABLE: Readonly<Record<Exclude<ModelAlias, 'inherit'>, ModelInfo>> = {
  opus: { id: 'claude-opus-4-6', family: 'opus', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  sonnet: { id: 'claude-sonnet-4-6', family: 'sonnet', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  haiku: { id: 'claude-haiku-4-5-20251001', family: 'haiku', contextWindow: 200_000, maxOutputTokens: 64_000 },
};

export const DEFAULT_CONTEXT_WINDOW = 200_000;

export function isModelAlias(value: string): value is ModelAlias {
  return (modelAliases as readonly string[]).includes(value);
}

/**
 * Resolves an alias (`opus`, `sonnet`, `haiku`, `inherit`) or a concrete id (`claude-…`) to a
 * concrete model id. `inherit` takes the parent's model (itself resolved, so a parent may also be
 * an alias). Anything else is `LLM.UNKNOWN_MODEL_ALIAS`.
 */
export function resolveModel(nameOrAlias: string, parentModel?: string): string {
  const name = nameOrAlias.trim();
  if (name === 'inherit') {
    if (!parentModel || parentModel.trim() === 'inherit') {
      throw new HeadspaceError(ErrorCodes.llmInheritWithoutParent, `model "inherit" needs a parent model`, {
        field: 'model',
      });
    }
    return resolveModel(parentModel);
  }
  if (name in MODEL_TABLE) return MODEL_TABLE[name as keyof typeof MODEL_TABLE].id;
  if (/^claude-[a-z0-9.-]+$/.test(name)) return name;
  throw new HeadspaceError(
    ErrorCodes.llmUnknownModelAlias,
    `unknown model "${name}": use one of ${modelAliases.join(', ')} or a concrete claude-… id`,
    { field: 'model', details: { model: name } },
  );
}

/** The family of a concrete id or alias, or undefined when it cannot be told. */
export function modelFamily(model: string): ModelFamily | undefined {
  const m = model.toLowerCase();
  if (m.includes('haiku')) return 'haiku';
  if (m.includes('sonnet')) return 'sonnet';
  if (m.includes('opus')) return 'opus';
  return undefined;
}

export function contextWindowFor(model: string): number {
  const known = Object.values(MODEL_TABLE).find((info) => info.id === model);
  return known?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
}
