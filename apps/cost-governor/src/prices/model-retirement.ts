import type { ModelPrice, ModelRetirementWarning, PriceTable } from '@headspace/contracts';

/** Anthropic notifies at least 60 days before retiring a publicly released model. */
export const DEFAULT_RETIREMENT_WARNING_DAYS = 60;

const DAY_MS = 86_400_000;

/** Whole UTC days from `at`'s day to `retiresOn` (0 on the day itself, negative after it). */
function daysUntil(retiresOn: string, at: Date): number {
  const today = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return Math.round((Date.parse(`${retiresOn}T00:00:00Z`) - today) / DAY_MS);
}

/** The warning for a model retired or retiring within `withinDays` of `at`; undefined otherwise. Pure. */
export function retirementWarning(row: ModelPrice, at: Date, withinDays: number): ModelRetirementWarning | undefined {
  if (!row.retiresOn) return undefined;
  const daysLeft = daysUntil(row.retiresOn, at);
  if (daysLeft > withinDays) return undefined;
  const message =
    daysLeft <= 0
      ? `${row.id} was retired on ${row.retiresOn}: requests to it fail`
      : `${row.id} retires on ${row.retiresOn} (in ${daysLeft} day${daysLeft === 1 ? '' : 's'}): move to a current model`;
  return { model: row.id, retiresOn: row.retiresOn, daysLeft, message };
}

/** Every model of the table with a warning on `at`, soonest first (the newest row of an id decides). */
export function retirementWarnings(table: PriceTable, at: Date, withinDays: number): ModelRetirementWarning[] {
  const latest = new Map<string, ModelPrice>();
  for (const row of table.models) {
    const seen = latest.get(row.id);
    if (!seen || seen.effectiveFrom <= row.effectiveFrom) latest.set(row.id, row);
  }
  return [...latest.values()]
    .map((row) => retirementWarning(row, at, withinDays))
    .filter((w): w is ModelRetirementWarning => w !== undefined)
    .sort((a, b) => a.daysLeft - b.daysLeft);
}

/**
 * Logs each model's retirement warning once per process: at start for the whole table and on first
 * use of a model, so a busy governor does not repeat the same line on every call.
 */
export class RetirementLog {
  private readonly logged = new Set<string>();

  constructor(private readonly warn: (line: string) => void) {}

  note(warning: ModelRetirementWarning | undefined): void {
    if (!warning || this.logged.has(warning.model)) return;
    this.logged.add(warning.model);
    this.warn(warning.message);
  }
}
