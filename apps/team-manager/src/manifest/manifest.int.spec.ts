import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, exportManifest, importManifest } from '@headspace/contracts';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { SEED_MANIFEST } from './seed-manifest.fixture';

let tm: TeamManagerHarness;

beforeAll(async () => {
  tm = await startTeamManager('manifest');
});
afterAll(async () => {
  await tm?.close();
});

const manifestEvents = async () => Number((await tm.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE category = 'manifest'`)).rows[0].count);

describe('team manifest import/export', () => {
  it('imports the seed team.yaml with defaults and overrides resolved, and exports it back so that import(export(x)) == x', async () => {
    const imported = await tm.send(importManifest, { yaml: SEED_MANIFEST });
    expect(imported).toMatchObject({ team: 'project-slug', changed: true, streamVersion: '1' });
    expect(imported.members).toEqual([
      { name: 'architect', role: 'System design, API contracts, patterns', model: 'opus', budget: 1, permissionMode: 'dontAsk', tools: ['Read', 'Grep', 'Glob', 'Bash(git:*)'], owns: ['src/core/**', 'docs/**', '*.md'] },
      {
        name: 'backend',
        role: 'Server logic, data models, business rules',
        model: 'sonnet',
        budget: 0.5,
        permissionMode: 'dontAsk',
        tools: ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'Bash(git:*)', 'Bash(uv run pytest:*)'],
        owns: ['src/domain/**', 'src/infra/**', 'tests/**'],
      },
    ]);

    const exported = await tm.send(exportManifest, { team: 'project-slug' });
    expect(exported.manifest).toEqual(imported.manifest);
    const reimported = await tm.send(importManifest, { yaml: exported.yaml });
    expect(reimported).toMatchObject({ changed: false, streamVersion: '1' });
    expect(reimported.manifest).toEqual(imported.manifest);
  });

  it('a changed manifest is recorded as a new version and exported as such; a retried import appends nothing more', async () => {
    const first = await tm.send(importManifest, { yaml: SEED_MANIFEST.replace('project-slug', 'blue') });
    const changedYaml = SEED_MANIFEST.replace('project-slug', 'blue').replace('budget: 0.50', 'budget: 2');
    const commandId = randomUUID();
    const second = await tm.send(importManifest, { yaml: changedYaml }, { commandId });
    expect(second).toMatchObject({ changed: true, streamVersion: String(Number(first.streamVersion) + 1) });
    expect(second.members.find((m) => m.name === 'backend')?.budget).toBe(2);
    const before = await manifestEvents();
    expect(await tm.send(importManifest, { yaml: changedYaml }, { commandId })).toMatchObject({ streamVersion: second.streamVersion });
    expect(await manifestEvents()).toBe(before);
    const exported = await tm.send(exportManifest, { team: 'blue' });
    expect(exported.yaml).toContain('budget: 2');
  });

  it('every invalid manifest is refused with MANIFEST.INVALID naming the field, and nothing is appended', async () => {
    const before = await manifestEvents();
    const base = 'team: green\ndescription: Green\nmembers:\n  - name: a\n    role: A\n    tools: [Read]\n    owns: []\n';
    const cases: Array<[string, string]> = [
      [`${base}  - name: b\n    role: B\n    tools: [Read]\n    owns: []\n  - name: c\n    role: C\n    tools: ["Bash(git:*"]\n    owns: []\n`, 'members.2.tools.0'],
      [base.replace('name: a', 'name: A'), 'members.0.name'],
      [base.replace('    owns: []\n', ''), 'members.0.owns'],
      [base.replace('owns: []', 'owns: ["../x"]'), 'members.0.owns.0'],
      [base.replace('description: Green\n', ''), 'description'],
      [`${base}budget: 1\n`, 'budget'],
      ['team: [', 'yaml'],
    ];
    for (const [yaml, field] of cases) {
      const error = await tm.sendError(importManifest, { yaml });
      expect({ code: error.code, field: error.field }).toEqual({ code: ErrorCodes.manifestInvalid, field });
    }
    expect(await manifestEvents()).toBe(before);
  });

  it('bad requests are refused with the field named: missing or non-text yaml, oversized yaml, unknown team on export', async () => {
    const before = await manifestEvents();
    for (const [body, field] of [
      [{}, 'yaml'],
      [{ yaml: 42 }, 'yaml'],
      [{ yaml: '' }, 'yaml'],
      [{ yaml: `# ${'x'.repeat(256_000)}` }, 'yaml'],
    ] as const) {
      const error = await tm.sendError(importManifest, body);
      expect({ code: error.code, field: error.field }).toEqual({ code: ErrorCodes.validationFailed, field });
    }
    expect(await manifestEvents()).toBe(before);
    expect(await tm.sendError(exportManifest, { team: 'nobody' })).toMatchObject({ code: ErrorCodes.manifestNotFound, field: 'team' });
    expect(await tm.sendError(exportManifest, { team: 'Not A Slug' })).toMatchObject({ code: ErrorCodes.validationFailed, field: 'team' });
    expect(await tm.sendError(exportManifest, {})).toMatchObject({ code: ErrorCodes.validationFailed, field: 'team' });
  });
});
