import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultScenariosDir } from './main';
import { loadScenarioDirs, loadScenarios, parseScenarioYaml } from './scenario';

function errorOf(fn: () => unknown): HeadspaceError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HeadspaceError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('scenario validation', () => {
  it('names the file and the field of a missing step reply', () => {
    const e = errorOf(() =>
      parseScenarioYaml('id: x\npersona: con\nsituation: s\nsteps:\n  - text: ok\n  - stop_reason: end_turn\n', 'broken.yaml'),
    );
    expect(e.code).toBe(ErrorCodes.simulatorScenarioInvalid);
    expect(e.field).toBe('steps.1');
    expect(e.message).toContain('broken.yaml');
    expect(e.message).toContain('steps.1');
    expect(e.details).toMatchObject({ file: 'broken.yaml' });
  });

  it('names the field of an invalid regex in a branch', () => {
    const e = errorOf(() =>
      parseScenarioYaml(
        'id: x\npersona: con\nsituation: s\nsteps:\n  - text: a\n    when:\n      - tool_result: "(unclosed"\n        text: b\n',
        'regex.yaml',
      ),
    );
    expect(e.field).toBe('steps.0.when.0.tool_result');
    expect(e.message).toMatch(/regex\.yaml: steps\.0\.when\.0\.tool_result: not a valid regular expression/);
  });

  it('rejects unknown keys, bad tool names and branches without a condition', () => {
    expect(errorOf(() => parseScenarioYaml('id: x\npersona: con\nsituation: s\nstepz: []\n', 'k.yaml')).message).toMatch(
      /k\.yaml: .*stepz/,
    );
    expect(
      errorOf(() =>
        parseScenarioYaml('id: x\npersona: con\nsituation: s\nsteps:\n  - tool_use:\n      - name: "bad name"\n', 't.yaml'),
      ).field,
    ).toBe('steps.0.tool_use.0.name');
    expect(
      errorOf(() =>
        parseScenarioYaml('id: x\npersona: con\nsituation: s\nsteps:\n  - text: a\n    when:\n      - text: b\n', 'c.yaml'),
      ).message,
    ).toContain('needs a condition');
  });

  it('reports YAML syntax errors with the file name', () => {
    const e = errorOf(() => parseScenarioYaml('id: [unclosed\n', 'syntax.yaml'));
    expect(e.code).toBe(ErrorCodes.simulatorScenarioInvalid);
    expect(e.message).toMatch(/^scenario syntax\.yaml: not valid YAML/);
  });

  it('refuses two files with the same scenario id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hs-llm-dup-'));
    const body = 'id: same\npersona: "*"\nsituation: "*"\nsteps:\n  - text: hi\n';
    writeFileSync(join(dir, 'a.yaml'), body);
    writeFileSync(join(dir, 'b.yml'), body);
    const e = errorOf(() => loadScenarios(dir));
    expect(e.code).toBe(ErrorCodes.simulatorScenarioDuplicate);
    expect(e.message).toContain('b.yml');
    expect(e.message).toContain('a.yaml');
  });

  it('loads every shipped scenario, including a default and the seven scripted hard cases', () => {
    const scenarios = loadScenarios(defaultScenariosDir());
    const ids = scenarios.map((s) => s.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'default',
        'con-implement-task',
        'mark-clean-workspace',
        'may-long-migration',
        'al-ask-teammate',
        'robbo-workshop',
        'gavin-decompose',
        'verner-qa',
      ]),
    );
  });

  it('scenarios of an extra directory come first and replace shipped ones of the same id', () => {
    const extra = mkdtempSync(join(tmpdir(), 'hs-llm-extra-'));
    writeFileSync(join(extra, 'default.yaml'), 'id: default\npersona: "*"\nsituation: "*"\nsteps:\n  - text: from the example\n');
    writeFileSync(join(extra, 'robbo.yaml'), 'id: example-robbo\npersona: robbo\nsituation: workshop\nsteps:\n  - text: example workshop\n');
    const all = loadScenarioDirs([extra, defaultScenariosDir()]);
    expect(all.slice(0, 2).map((s) => s.id)).toEqual(['default', 'example-robbo']);
    expect(all.filter((s) => s.id === 'default')).toHaveLength(1);
    expect(all.find((s) => s.id === 'default')?.steps[0].text).toBe('from the example');
  });
});
