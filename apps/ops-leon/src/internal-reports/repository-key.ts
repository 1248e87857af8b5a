import { posix } from 'node:path';

/**
 * One spelling per repository, so a run's source finds the ops project that names the same code:
 * `https://user:token@GitHub.com/org/app.git/`, `git@github.com:org/app` and `ssh://git@github.com/org/app`
 * are all `github.com/org/app`; a directory is its absolute path (a relative one from `cwd`) without
 * a trailing slash, and `file://` URLs are directories.
 */
export function repositoryKey(repository: string, cwd = process.cwd()): string {
  const value = repository.trim();
  const scp = /^(?:[\w.-]+@)?([\w.-]+):(?!\/\/)(.+)$/.exec(value);
  if (scp && !/^[A-Za-z]:[\\/]/.test(value) && !value.startsWith('/') && !value.startsWith('.')) return remoteKey(scp[1], scp[2]);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (url.protocol === 'file:') return directoryKey(decodeURIComponent(url.pathname), cwd);
      return remoteKey(url.hostname, url.pathname);
    } catch {
      return value;
    }
  }
  return directoryKey(value, cwd);
}

function remoteKey(host: string, path: string): string {
  const repo = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/i, '').replace(/\/+$/, '');
  return `${host.toLowerCase()}/${repo}`;
}

function directoryKey(path: string, cwd: string): string {
  const absolute = posix.resolve(cwd, path);
  return absolute.length > 1 ? absolute.replace(/\/+$/, '') : absolute;
}
