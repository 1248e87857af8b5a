import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { PluginParts } from '@headspace/contracts';

/** A row of the plugins read model (plugins.projection.ts writes it; migrations/0007_plugins.sql creates it). */
export const PluginRow = defineEntity({
  name: 'PluginRow',
  tableName: 'plugins',
  properties: {
    team: p.text().primary(),
    plugin: p.text().primary(),
    version: p.text(),
    description: p.text().nullable(),
    source: p.text(),
    commit: p.text().nullable(),
    contentHash: p.text(),
    dir: p.text(),
    parts: p.json<PluginParts>(),
    enabled: p.boolean(),
    installedAt: p.datetime(),
  },
});
export type PluginRow = InferEntity<typeof PluginRow>;

/** The API's view of a row. */
export const pluginViewOf = (r: PluginRow) => ({
  team: r.team,
  plugin: r.plugin,
  version: r.version,
  description: r.description ?? null,
  source: r.source,
  commit: r.commit ?? null,
  enabled: r.enabled,
  dir: r.dir,
  parts: r.parts,
  installedAt: r.installedAt.toISOString(),
});
