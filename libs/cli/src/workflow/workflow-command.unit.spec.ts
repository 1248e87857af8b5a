import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../exit-codes';
import { readWorkflowFile, workflowSummaryLines, type WorkflowViewLike } from './workflow-command';

const dir = mkdtempSync(join(tmpdir(), 'hs-workflow-cli-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('workflow command', () => {
  it('reads a YAML definition, and JSON as well', () => {
    expect(readWorkflowFile(file('a.yaml', 'name: a\nsteps:\n  - id: x\n    prompt: do x\n'))).toEqual({ name: 'a', steps: [{ id: 'x', prompt: 'do x' }] });
    expect(readWorkflowFile(file('b.json', '{"name":"b","steps":[]}'))).toEqual({ name: 'b', steps: [] });
  });

  it('refuses a file that is not a definition object as a usage error naming the file', () => {
    const path = file('c.yaml', '- just\n- a list\n');
    expect(() => readWorkflowFile(path)).toThrow(CliError);
    expect(() => readWorkflowFile(path)).toThrow(`${path} is not a workflow definition`);
    expect(() => readWorkflowFile(join(dir, 'missing.yaml'))).toThrow(/Cannot read/);
  });

  it('summarises each step on a line: output when it succeeded, the reason otherwise', () => {
    const view: WorkflowViewLike = {
      workflowId: 'wf-d-1',
      name: 'd',
      mode: 'dag',
      status: 'failed',
      simulated: true,
      reason: 'failed steps: b',
      steps: [
        { id: 'a', status: 'succeeded', attempts: 2, needs: [], output: 'all good\nmore', reason: null, costUsd: '0.01', startedAt: null, endedAt: null },
        { id: 'b', status: 'failed', attempts: 0, needs: ['a'], output: null, reason: 'needs "a", which failed', costUsd: null, startedAt: null, endedAt: null },
      ],
    };
    expect(workflowSummaryLines(view)).toEqual([
      'workflow wf-d-1 (d, dag) failed  [simulated]',
      `  ${'a'.padEnd(20)} succeeded (2 attempts) $0.01 all good`,
      `  ${'b'.padEnd(20)} failed    needs "a", which failed`,
      'reason: failed steps: b',
    ]);
  });
});
