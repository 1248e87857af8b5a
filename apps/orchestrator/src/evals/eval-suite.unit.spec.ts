import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { parseEvalSuite } from './eval-suite';

const refusal = (text: string) => {
  try {
    parseEvalSuite(text, 'evals/smoke.yaml');
  } catch (error) {
    if (error instanceof HeadspaceError && error.code === ErrorCodes.evalSuiteInvalid) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('the suite was accepted');
};

const good = `
name: smoke
tasks:
  - id: readme
    prompt: Write a README
    graders:
      - type: file
        path: README.md
        matches: "^# "
      - type: command
        command: test -s README.md
        weight: 2
      - type: rubric
        rubric: The README explains how to run the app.
`;

describe('parseEvalSuite', () => {
  it('reads tasks and graders with their defaults', () => {
    const suite = parseEvalSuite(good, 'evals/smoke.yaml');
    expect(suite.tasks[0]!.weight).toBe(1);
    expect(suite.tasks[0]!.graders.map((g) => [g.type, g.weight])).toEqual([['file', 1], ['command', 2], ['rubric', 1]]);
    expect(suite.tasks[0]!.graders[2]).toMatchObject({ passScore: 0.5 });
  });

  it('names the field of a grader of an unknown type', () =>
    expect(refusal(good.replace('type: command', 'type: shell')).field).toBe('suite.tasks.0.graders.1.type'));
  it('names a file path that climbs out of the checkout', () => expect(refusal(good.replace('path: README.md', 'path: ../secrets')).field).toBe('suite.tasks.0.graders.0.path'));
  it('names a fixture outside the workspace', () => expect(refusal(good.replace('    prompt: Write a README\n', '    prompt: Write a README\n    fixture: ../other\n')).field).toBe('suite.tasks.0.fixture'));
  it('names an invalid regular expression', () => expect(refusal(good.replace('matches: "^# "', 'matches: "(["')).field).toBe('suite.tasks.0.graders.0.matches'));
  it('names a task without a prompt', () => expect(refusal(good.replace('    prompt: Write a README\n', '')).field).toBe('suite.tasks.0.prompt'));
  it('names an unknown key', () => expect(refusal(good.replace('name: smoke', 'name: smoke\nretries: 2')).field).toBe('suite'));
  it('names a duplicate task id', () => {
    const twice = `name: s\ntasks:\n  - { id: a, prompt: x, graders: [{ type: command, command: "true" }] }\n  - { id: a, prompt: y, graders: [{ type: command, command: "true" }] }\n`;
    expect(refusal(twice)).toMatchObject({ field: 'suite.tasks.1.id' });
  });
  it('refuses text that is not YAML, naming the suite', () => expect(refusal('name: [unclosed').field).toBe('suite'));
});
