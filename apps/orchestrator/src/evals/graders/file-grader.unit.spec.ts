import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradeFile } from './file-grader';

let dir: string;
let outside: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eval-file-grader-'));
  outside = await mkdtemp(join(tmpdir(), 'eval-file-outside-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'greeting.txt'), 'Hello from claude-sonnet-4-5\n');
  await writeFile(join(outside, 'secret.txt'), 'Hello');
  await symlink(join(outside, 'secret.txt'), join(dir, 'link.txt'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const grader = (extra: Record<string, string> = {}) => ({ type: 'file' as const, path: 'src/greeting.txt', weight: 2, ...extra });

describe('gradeFile', () => {
  it('passes a file that exists, with the grader’s weight', async () => expect(await gradeFile(grader(), dir)).toMatchObject({ passed: true, score: 1, weight: 2 }));
  it('fails a missing file, saying so', async () => expect(await gradeFile(grader({ path: 'nope.txt' }), dir)).toMatchObject({ passed: false, score: 0, detail: 'nope.txt does not exist' }));
  it('checks contains', async () => {
    expect((await gradeFile(grader({ contains: 'Hello from' }), dir)).passed).toBe(true);
    expect((await gradeFile(grader({ contains: 'Goodbye' }), dir)).detail).toMatch(/does not contain "Goodbye"/);
  });
  it('checks matches per line', async () => {
    expect((await gradeFile(grader({ matches: '^Hello from .*sonnet' }), dir)).passed).toBe(true);
    expect((await gradeFile(grader({ matches: 'haiku' }), dir)).passed).toBe(false);
  });
  it('counts a link leading out of the checkout as missing', async () => expect((await gradeFile(grader({ path: 'link.txt' }), dir)).passed).toBe(false));
  it('fails a directory as not a readable file', async () => expect((await gradeFile(grader({ path: 'src' }), dir)).detail).toMatch(/not a readable file/));
});
