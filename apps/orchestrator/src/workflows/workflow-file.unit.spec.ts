import { ValidationError } from '@headspace/contracts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWorkflowFile } from './workflow-file';

const workspace = mkdtempSync(join(tmpdir(), 'hs-workflow-file-'));
writeFileSync(join(workspace, 'ok.yaml'), 'name: ok\nmode: pipeline\nsteps:\n  - id: a\n    prompt: one\n  - id: b\n    prompt: "two after {{ steps.a.output }}"\n');
writeFileSync(join(workspace, 'cycle.yaml'), 'name: c\nsteps:\n  - { id: a, prompt: p, needs: [b] }\n  - { id: b, prompt: p, needs: [a] }\n');
writeFileSync(join(workspace, 'broken.yaml'), 'name: [unclosed\n');

const fieldOf = (promise: Promise<unknown>) => promise.then(
  () => undefined,
  (error: unknown) => (error instanceof ValidationError ? error.field : String(error)),
);

describe('a workflow definition read from the workspace', () => {
  it('is parsed with the contract’s defaults', async () => {
    const def = await readWorkflowFile(workspace, 'ok.yaml');
    expect(def).toMatchObject({ name: 'ok', mode: 'pipeline', steps: [{ id: 'a', kind: 'ask', retries: 0 }, { id: 'b' }] });
  });

  it('names the field of a bad definition under `definition`', async () => {
    expect(await fieldOf(readWorkflowFile(workspace, 'cycle.yaml'))).toBe('definition.steps.0.needs');
  });

  it('names `file` for a missing file, bad YAML, a path leaving the workspace or a workspace that is not a directory', async () => {
    expect(await fieldOf(readWorkflowFile(workspace, 'missing.yaml'))).toBe('file');
    expect(await fieldOf(readWorkflowFile(workspace, 'broken.yaml'))).toBe('file');
    expect(await fieldOf(readWorkflowFile(workspace, '../elsewhere.yaml'))).toBe('file');
    expect(await fieldOf(readWorkflowFile('https://example.com/repo.git', 'ok.yaml'))).toBe('file');
  });
});
