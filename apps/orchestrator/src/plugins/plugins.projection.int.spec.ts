import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, pluginEvents, pluginStreamId } from '@headspace/contracts';
import { EventStore, migrate, type NewEvent } from '@headspace/event-store';
import { createTestDatabase, inStream, ProjectionSpec, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { PluginsProjection } from './plugins.projection';

const schema = 'orchestrator';
let db: TestDatabase;
let spec: ProjectionSpec<PluginsProjection>;

beforeAll(async () => {
  db = await createTestDatabase('plugins');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry(pluginEvents) });
  spec = ProjectionSpec.for(store, () => new PluginsProjection(store));
});
afterAll(async () => {
  await db?.drop();
});

const at = '2026-11-27T06:00:00.000Z';
const parts = { agents: ['kit:reviewer'], skills: ['owasp'], commands: [], hooks: ['PreToolUse'], mcpServers: ['deps'] };
const installed = (team: string, plugin: string, version = '1.0.0', hash = '1'): NewEvent => ({
  type: 'plugin.installed',
  data: { team, plugin, version, source: '/src/kit', commit: 'a'.repeat(40), contentHash: hash.repeat(64), dir: `/home/plugins/${team}/${plugin}/${hash.repeat(16)}`, parts, at },
});
const toggled = (type: 'plugin.enabled' | 'plugin.disabled' | 'plugin.removed', team: string, plugin: string): NewEvent => ({ type, data: { team, plugin, at } });
const rows = (team: string) => ({ sql: 'SELECT plugin, version, enabled, dir, parts FROM orchestrator.plugins WHERE team = $1 ORDER BY plugin', params: [team] });

describe('plugins projection', () => {
  it('an installed plugin is listed enabled with its copy and parts', async () => {
    const team = `t-${randomUUID().slice(0, 8)}`;
    await spec.when(inStream(pluginStreamId(team, 'kit'), installed(team, 'kit'))).then(rows(team), [{ plugin: 'kit', version: '1.0.0', enabled: true, dir: `/home/plugins/${team}/kit/${'1'.repeat(16)}`, parts }]);
  });

  it('a disabled plugin stays listed, disabled; an upgrade replaces version and copy', async () => {
    const team = `t-${randomUUID().slice(0, 8)}`;
    const stream = pluginStreamId(team, 'kit');
    await spec
      .given(inStream(stream, installed(team, 'kit'), toggled('plugin.disabled', team, 'kit')))
      .when(inStream(stream, installed(team, 'kit', '1.1.0', '2'), toggled('plugin.disabled', team, 'kit')))
      .then(rows(team), [{ plugin: 'kit', version: '1.1.0', enabled: false, dir: `/home/plugins/${team}/kit/${'2'.repeat(16)}` }]);
  });

  it('a removed plugin leaves the list; another team’s plugin of the same name stays', async () => {
    const team = `t-${randomUUID().slice(0, 8)}`;
    const other = `o-${randomUUID().slice(0, 8)}`;
    await spec
      .given(inStream(pluginStreamId(team, 'kit'), installed(team, 'kit')), inStream(pluginStreamId(other, 'kit'), installed(other, 'kit')))
      .when(inStream(pluginStreamId(team, 'kit'), toggled('plugin.removed', team, 'kit')))
      .then(rows(team), []);
    await spec.when().then(rows(other), [{ plugin: 'kit', enabled: true }]);
  });

  it('rebuilt from position 0 equals the live rows', async () => {
    await spec.rebuiltEqualsLive();
  });
});
