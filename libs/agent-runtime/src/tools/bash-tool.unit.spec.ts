import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { createSandbox } from '../sandbox/create-sandbox';
import { sandboxAvailability } from '../sandbox/sandbox-availability';
import { bashTool, createBashTool, OutputCap, scrubEnv } from './bash-tool';
import { isAlive } from './testing/processes';
import { makeTempDir, removeDir } from './testing/temp-workspace';
import type { ToolContext } from './types';

describe('Bash tool', () => {
  let root: string;
  let ctx: ToolContext;
  beforeEach(async () => {
    root = await makeTempDir();
    ctx = { workspaceRoot: root, agentId: 'con', toolUseId: 'toolu_1' };
  });
  afterEach(() => removeDir(root));

  it('runs in the workspace directory and reports exit code 0', async () => {
    const r = await bashTool.execute({ command: 'pwd; echo hello' }, ctx);
    expect(r.isError).toBe(false);
    expect(r.content).toContain(root);
    expect(r.content).toContain('hello');
    expect(r.content).toContain('Exit code: 0');
  });

  it('reports a non-zero exit code as an error result with stderr included', async () => {
    const r = await bashTool.execute({ command: 'echo oops >&2; exit 3' }, ctx);
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolExecutionFailed });
    expect(r.content).toContain('oops');
    expect(r.content).toContain('Exit code: 3');
  });

  it('kills the whole process group on timeout and says so', async () => {
    const r = await bashTool.execute({ command: 'sleep 60 & echo $! > child.pid; wait', timeout: 300 }, ctx);
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolTimeout });
    expect(r.content).toContain('timed out after 300 ms');
    const childPid = Number((await readFile(path.join(root, 'child.pid'), 'utf8')).trim());
    await expect.poll(() => isAlive(childPid), { timeout: 5000 }).toBe(false);
  });

  it('caps long output, keeping head and tail, with a truncation note', async () => {
    const tool = createBashTool({ maxOutputChars: 1000 });
    const r = await tool.execute({ command: 'seq 1 20000' }, ctx);
    expect(r.content).toMatch(/\[output truncated: \d+ of \d+ characters omitted\]/);
    expect(r.content.length).toBeLessThan(1200);
    expect(r.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.content).toContain('19999\n20000');
  });

  it('scrubs secrets from the environment of the command', async () => {
    const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-secret', DEPLOY_TOKEN: 't0k', DATABASE_URL: 'postgres://u:p@h/db', GIT_AUTHOR_NAME: 'Con', HARMLESS: 'visible' };
    const r = await bashTool.execute({ command: 'echo "k=${ANTHROPIC_API_KEY:-none} t=${DEPLOY_TOKEN:-none} d=${DATABASE_URL:-none} a=$GIT_AUTHOR_NAME h=$HARMLESS"' }, { ...ctx, env });
    expect(r.content).toContain('k=none t=none d=none a=Con h=visible');
    expect(r.content).not.toContain('sk-ant-secret');
  });

  it('keeps variables explicitly allowed through the scrub', () => {
    expect(scrubEnv({ GITHUB_TOKEN: 'x', OTHER_SECRET: 'y', HOME: '/h' }, ['GITHUB_TOKEN'])).toEqual({ GITHUB_TOKEN: 'x', HOME: '/h' });
  });

  it('shows NUL bytes of the output as \\0, so the call can be recorded', async () => {
    const r = await bashTool.execute({ command: "printf 'A=1\\0B=2\\0'" }, ctx);
    expect(r.content).toContain('A=1\\0B=2\\0');
    expect(r.content).not.toContain('\0');
  });

  it('runs inside the sandbox of the context: its own PID namespace, only the policy environment', async () => {
    const available = await sandboxAvailability();
    if (!available.available) throw new Error(`bubblewrap is required: ${available.reason}`);
    const sandbox = await createSandbox(available, { workspace: root, workspaceAccess: 'rw', network: false, env: { HARMLESS: 'visible', PATH: '/usr/bin' } });
    const r = await bashTool.execute({ command: 'echo "pid=$$ h=${HARMLESS:-none} home=$HOME"; pwd' }, { ...ctx, env: { HARMLESS: 'visible' }, sandbox });
    expect(r.isError).toBe(false);
    expect(r.content).toMatch(/pid=[0-9]\b/);
    expect(r.content).toContain('h=none home=/tmp/home');
    expect(r.content).toContain(await realpath(root));
  });

  it('stops the command when the abort signal fires', async () => {
    const controller = new AbortController();
    const running = bashTool.execute({ command: 'echo started; sleep 60' }, { ...ctx, signal: controller.signal });
    controller.abort();
    const r = await running;
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolExecutionFailed });
    expect(r.content).toContain('aborted');
  });
});

describe('OutputCap', () => {
  it('returns everything when under the cap', () => {
    const cap = new OutputCap(100);
    cap.push('abc');
    cap.push('def');
    expect(cap.text()).toBe('abcdef');
  });

  it('keeps the first and last halves across many chunks', () => {
    const cap = new OutputCap(10);
    for (const c of 'abcdefghijklmnopqrstuvwxyz') cap.push(c);
    expect(cap.text()).toBe('abcde\n[output truncated: 16 of 26 characters omitted]\nvwxyz');
  });
});
