import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunSource } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSourceRoots, RunSourcePolicy } from './run-source.policy';

let base: string;
let policy: RunSourcePolicy;
const notAllowed = { code: 'RUN.SOURCE_NOT_ALLOWED', field: 'source' };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'hs-run-source-'));
  await mkdir(join(base, 'roots', 'projects', 'app'), { recursive: true });
  await mkdir(join(base, 'secret'), { recursive: true });
  await writeFile(join(base, 'secret', 'id_rsa'), 'key\n');
  await mkdir(join(base, 'runs', 'other-run'), { recursive: true });
  await symlink(join(base, 'secret'), join(base, 'roots', 'projects', 'escape'));
  await symlink(join(base, 'roots', 'projects'), join(base, 'linked-root'));
  policy = new RunSourcePolicy({ roots: [join(base, 'roots', 'projects'), join(base, 'linked-root'), join(base, 'runs')], workspacesDir: join(base, 'runs') });
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('run source policy', () => {
  it('admits a directory under a root as its real path, also through a root that is a link', async () => {
    const real = await policy.check(join(base, 'roots', 'projects', 'app'));
    expect(real).toMatch(/\/roots\/projects\/app$/);
    await expect(policy.check(join(base, 'linked-root', 'app'))).resolves.toBe(real);
    await expect(policy.check(`file://${join(base, 'roots', 'projects', 'app')}`)).resolves.toBe(real);
  });

  it('refuses server paths outside the roots, existing or not, without telling which', async () => {
    for (const path of ['/etc', '/nonexistent/dir', join(base, 'secret'), `file://${join(base, 'secret')}`]) {
      await expect(policy.check(path), path).rejects.toMatchObject(notAllowed);
    }
  });

  it('resolves ".." and symlinks before judging a path', async () => {
    await expect(policy.check(join(base, 'roots', 'projects', '..', '..', 'secret'))).rejects.toMatchObject(notAllowed);
    await expect(policy.check(join(base, 'roots', 'projects', 'escape'))).rejects.toMatchObject(notAllowed);
  });

  it('never admits the runs workspaces directory, even under a root', async () => {
    await expect(policy.check(join(base, 'runs', 'other-run'))).rejects.toMatchObject(notAllowed);
  });

  it('answers a missing directory under a root as not found', async () => {
    await expect(policy.check(join(base, 'roots', 'projects', 'missing'))).rejects.toMatchObject({ code: 'RUN.SOURCE_NOT_FOUND', field: 'source' });
  });

  it('admits https, ssh and user@host:path git URLs as given', async () => {
    for (const url of ['https://github.com/acme/app.git', 'ssh://git@github.com:22/acme/app.git', 'git@github.com:acme/app.git']) {
      await expect(policy.check(url)).resolves.toBe(url);
    }
  });

  it('refuses other shapes: relative paths, other transports, credentials in the URL, option-like parts', () => {
    const refused = [
      'relative/dir',
      '../up',
      'http://example.com/a.git',
      'git://example.com/a.git',
      'ext::sh -c touch% /tmp/pwned',
      'https://user:ghp_secret@github.com/acme/app.git',
      'https://ghp_secret@github.com/acme/app.git',
      'ssh://-oProxyCommand=touch%20x/a.git',
      'git@github.com:-upload-pack=x',
      'file://otherhost/etc',
      '/tmp/a\nb',
      ' /tmp/a',
    ];
    for (const source of refused) expect(parseRunSource(source), source).toHaveProperty('error');
  });

  it('reads HS_SOURCE_ROOTS separated by colons or commas', () => {
    expect(parseSourceRoots('/a:/b, /c,,')).toEqual(['/a', '/b', '/c']);
  });
});
