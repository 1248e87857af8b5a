import { ErrorCodes, HeadspaceError, issuesOf, ValidationError, priceTableSchema, type ModelPrice, type ModelTier, type PriceTable } from '@headspace/contracts';
import { parse } from 'yaml';

/** Parses and validates a price table (YAML or JSON text); a bad one names the offending field. */
export function parsePriceTable(text: string, source: string): PriceTable {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new HeadspaceError(ErrorCodes.priceTableInvalid, `${source} is not valid YAML: ${(error as Error).message}`);
  }
  const result = priceTableSchema.safeParse(raw);
  if (!result.success) {
    const issues = issuesOf(result.error);
    const error = new ValidationError(`price table ${source}`, issues);
    throw new HeadspaceError(ErrorCodes.priceTableInvalid, error.message, { field: error.field, details: error.details });
  }
  return result.data;
}

/**
 * Lookups in one published price table: a model by id or alias, the row in effect on a date (rows
 * for the same id replace each other from their `effectiveFrom`), the default model of a tier.
 */
export class PriceBook {
  private readonly rowsByName = new Map<string, ModelPrice[]>();
  private readonly tierDefaults = new Map<ModelTier, string>();

  constructor(readonly table: PriceTable) {
    for (const model of table.models) {
      for (const name of new Set([model.id, ...model.aliases])) {
        const rows = this.rowsByName.get(name) ?? [];
        rows.push(model);
        rows.sort((a, b) => a.effectiveFrom.localeCompare(b.effectiveFrom));
        this.rowsByName.set(name, rows);
      }
      // A tier's default is the model its bare alias (`opus`, `sonnet`, `haiku`) names.
      if (model.aliases.includes(model.tier)) this.tierDefaults.set(model.tier, model.id);
    }
  }

  get version(): number {
    return this.table.version;
  }

  /** The price row of `model` in effect at `at` (the earliest row before any took effect). */
  resolve(model: string, at: Date = new Date()): ModelPrice {
    const rows = this.rowsByName.get(model);
    if (!rows) {
      throw new HeadspaceError(ErrorCodes.costUnknownModel, `No price for model "${model}" in price table v${this.table.version}`, {
        field: 'model',
        details: { model, priceVersion: this.table.version },
      });
    }
    const day = at.toISOString().slice(0, 10);
    let chosen = rows[0];
    for (const row of rows) if (row.effectiveFrom <= day) chosen = row;
    return chosen;
  }

  /** The model a tier routes to. */
  modelForTier(tier: ModelTier): string {
    const id = this.tierDefaults.get(tier) ?? this.table.models.find((m) => m.tier === tier)?.id;
    if (!id) throw new HeadspaceError(ErrorCodes.costUnknownModel, `Price table v${this.table.version} has no ${tier} model`, { field: 'model' });
    return id;
  }
}
