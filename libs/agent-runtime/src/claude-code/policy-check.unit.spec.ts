import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkToolCall, toolCallPolicyOf } from './policy-check';

const root = mkdtempSync(join(tmpdir(), 'hs-policy-check-'));
const outside = mkdtempSync(join(tmpdir(), 'hs-policy-out-'));
mkdirSync(join(root, 'src'));
symlinkSync(outside, join(root, 'src', 'link'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const policy = toolCallPolicyOf({ checkoutRoot: root, ownedPaths: ['src/**'], deniedBash: ['npm publish'] }, ['Read', 'Write', 'Bash(git:*)']);
const call = (tool_name: string, tool_input: Record<string, unknown>) => checkToolCall(policy, { tool_name, tool_input, cwd: root });

describe('checkToolCall (the hook endpoint’s PreToolUse policy, as the bridge’s)', () => {
  it('given a write inside the owned paths, then no objection', () => {
    expect(call('Write', { file_path: 'src/a.ts' })).toBeUndefined();
  });

  it('given writes outside the owned paths, outside the checkout or through a symlink out, then denied with the reason', () => {
    expect(call('Write', { file_path: 'README.md' })).toMatch(/outside the owned paths/);
    expect(call('Write', { file_path: join(outside, 'x') })).toMatch(/outside the checkout/);
    expect(call('Write', { file_path: 'src/link/escaped.ts' })).toMatch(/outside the checkout/);
  });

  it('given denied commands anywhere in a compound command, then denied naming the pattern', () => {
    expect(call('Bash', { command: 'ls && chmod 777 run.sh' })).toBe('Headspace policy: "chmod 777" commands are not allowed');
    expect(call('Bash', { command: 'FOO=1 git push origin main --force' })).toBe('Headspace policy: "git push --force" commands are not allowed');
    expect(call('Bash', { command: 'npm publish --tag next' })).toMatch(/npm publish/);
    expect(call('Bash', { command: 'git status' })).toBeUndefined();
  });

  it('given a tool the session lacks (Agent, or its old name Task), then denied; the reflection tool always passes', () => {
    expect(call('Agent', {})).toMatch(/the Agent tool is not allowed/);
    expect(call('Task', {})).toMatch(/the Task tool is not allowed/);
    expect(call('StructuredOutput', {})).toBeUndefined();
  });
});
