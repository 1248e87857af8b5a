import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What the installed @anthropic-ai/sdk knows about models: its `Model` ids and its own warnings. */
export interface InstalledSdkModels {
  version: string;
  /** The literal ids of the SDK's `Model` union (resources/messages/messages.d.ts). */
  ids: string[];
  /** DEPRECATED_MODELS: id → end-of-life day (YYYY-MM-DD). */
  deprecated: Record<string, string>;
  /** MODELS_TO_WARN_WITH_THINKING_ENABLED: where the SDK warns on `thinking.type: enabled`. */
  warnOnEnabledThinking: string[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "November 30th, 2026" → "2026-11-30". */
export function sdkDateToIso(text: string): string {
  const m = /^([A-Za-z]+) (\d{1,2})(?:st|nd|rd|th)?, (\d{4})$/.exec(text.trim());
  const month = m ? MONTHS.indexOf(m[1].toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unreadable SDK date "${text}"`);
  return `${m[3]}-${String(month + 1).padStart(2, '0')}-${m[2].padStart(2, '0')}`;
}

/**
 * Reads the installed SDK's model data from its files (its package exports do not expose
 * internal/data), so a spec can tell when an SDK upgrade brings a model the price table lacks.
 */
export function installedSdkModels(): InstalledSdkModels {
  // The package's main entry (index.js) sits at its root; its exports hide package.json itself.
  const root = dirname(createRequire(__filename).resolve('@anthropic-ai/sdk'));
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  const union = /export type Model =([^;]+);/.exec(read('resources/messages/messages.d.ts'))?.[1];
  if (!union) throw new Error('no `export type Model` in the installed SDK');
  const ids = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  const deprecatedBody = /DEPRECATED_MODELS = \{([^}]*)\}/.exec(read('internal/data/deprecated-models.js'))?.[1] ?? '';
  const deprecated = Object.fromEntries([...deprecatedBody.matchAll(/'([^']+)':\s*'([^']+)'/g)].map((m) => [m[1], sdkDateToIso(m[2])]));
  const warnBody = /MODELS_TO_WARN_WITH_THINKING_ENABLED = \[([^\]]*)\]/.exec(read('internal/data/models-to-warn-with-thinking-enabled.js'))?.[1] ?? '';
  const warnOnEnabledThinking = [...warnBody.matchAll(/'([^']+)'/g)].map((m) => m[1]);
  const { version } = JSON.parse(read('package.json')) as { version: string };
  return { version, ids, deprecated, warnOnEnabledThinking };
}
