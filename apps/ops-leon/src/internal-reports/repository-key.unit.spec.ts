import { describe, expect, it } from 'vitest';
import { repositoryKey } from './repository-key';

describe('repositoryKey: one spelling per repository', () => {
  it('gives https, scp-like and ssh URLs of one repository the same key, without credentials, port, .git or trailing slash', () => {
    const keys = [
      'https://github.com/Acme/shop',
      'https://user:ghp_token@GitHub.com/Acme/shop.git/',
      'git@github.com:Acme/shop.git',
      'github.com:Acme/shop',
      'ssh://git@github.com:22/Acme/shop.git',
    ].map((r) => repositoryKey(r));
    expect(new Set(keys)).toEqual(new Set(['github.com/Acme/shop']));
  });

  it('keeps different repositories apart, and the owner and name as they are spelled', () => {
    expect(repositoryKey('https://github.com/acme/shop')).not.toBe(repositoryKey('https://github.com/acme/shop-api'));
    expect(repositoryKey('https://gitlab.com/acme/shop')).not.toBe(repositoryKey('https://github.com/acme/shop'));
  });

  it('makes a directory absolute (a relative one from cwd) without a trailing slash, and reads file:// URLs as directories', () => {
    expect(repositoryKey('/srv/shop/')).toBe('/srv/shop');
    expect(repositoryKey('./shop', '/srv')).toBe('/srv/shop');
    expect(repositoryKey('.', '/srv/headspace')).toBe('/srv/headspace');
    expect(repositoryKey('file:///srv/shop/')).toBe('/srv/shop');
    expect(repositoryKey('/')).toBe('/');
  });
});
