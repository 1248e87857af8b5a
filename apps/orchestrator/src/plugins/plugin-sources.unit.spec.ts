import { ErrorCodes } from '@headspace/contracts';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contentHashOf } from './plugin-sources';

describe('content hash of a plugin copy', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function tree(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'hs-plugin-hash-'));
    dirs.push(dir);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }

  it('is the same for the same files wherever they lie, ignoring .git', async () => {
    const files = { '.claude-plugin/plugin.json': '{"name":"kit","version":"1.0.0"}', 'agents/a.md': 'a' };
    const a = await tree(files);
    const b = await tree({ ...files, '.git/HEAD': 'ref: refs/heads/main' });
    expect(await contentHashOf(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(await contentHashOf(a)).toBe(await contentHashOf(b));
  });

  it('changes with a file’s bytes or name', async () => {
    const base = await contentHashOf(await tree({ 'agents/a.md': 'a' }));
    expect(await contentHashOf(await tree({ 'agents/a.md': 'b' }))).not.toBe(base);
    expect(await contentHashOf(await tree({ 'agents/b.md': 'a' }))).not.toBe(base);
  });

  it('refuses a symbolic link, naming it', async () => {
    const dir = await tree({ 'agents/a.md': 'a' });
    await symlink('/etc/hostname', join(dir, 'agents', 'host.md'));
    await expect(contentHashOf(dir)).rejects.toMatchObject({ code: ErrorCodes.pluginSourceInvalid, field: 'source', message: expect.stringContaining('agents/host.md') });
  });
});
