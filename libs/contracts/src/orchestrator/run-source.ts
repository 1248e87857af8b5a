import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * What a run's `source` may name, by its shape alone (no filesystem: the gateway checks this early,
 * the orchestrator again before it checks the path against its allowed roots, `HS_SOURCE_ROOTS`):
 * - a git URL the orchestrator clones: `https://host/…`, `ssh://[user@]host[:port]/…` or
 *   `user@host:path` (scp form) — never with a password or token in it (it would be recorded in
 *   the run's events), never a host or path starting with `-` (read by git as an option);
 * - a directory on the orchestrator host: an absolute path, or a `file://` URL of one.
 * Anything else (relative paths, `http://`, `git://`, `ext::…`, other transports) is refused.
 */
export type RunSource = { kind: 'git-url'; url: string } | { kind: 'path'; path: string };

export const RUN_SOURCE_SHAPES = 'an https://, ssh:// or user@host:path git URL, a file:// URL or an absolute path';

const SCP_FORM = /^([A-Za-z0-9._~-]+)@([A-Za-z0-9][A-Za-z0-9.-]*):(?!\/\/)([^\s]+)$/;

/** The source's kind and the URL or path it names, or why its shape is refused. */
export function parseRunSource(source: string): RunSource | { error: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(source)) return { error: 'must not contain control characters' };
  if (source !== source.trim()) return { error: 'must not start or end with spaces' };
  if (source.startsWith('/')) return { kind: 'path', path: source };
  const scp = SCP_FORM.exec(source);
  if (scp) return scp[3].startsWith('-') ? { error: 'a git URL path must not start with "-"' } : { kind: 'git-url', url: source };
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return { error: `must be ${RUN_SOURCE_SHAPES}` };
  }
  if (url.protocol === 'file:') {
    if (url.hostname !== '' && url.hostname !== 'localhost') return { error: 'a file:// URL must name a path on the orchestrator host' };
    return { kind: 'path', path: fileURLToPath(url) };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'ssh:') return { error: `must be ${RUN_SOURCE_SHAPES}` };
  if (url.password !== '' || (url.protocol === 'https:' && url.username !== '')) return { error: 'a git URL must not carry credentials (configure them on the orchestrator host)' };
  if (url.hostname === '' || url.hostname.startsWith('-')) return { error: 'a git URL needs a host name' };
  if (url.pathname.length <= 1) return { error: 'a git URL needs a repository path' };
  return { kind: 'git-url', url: source };
}

/** `source` of start-run: its shape checked (see parseRunSource); the orchestrator checks the path. */
export const runSourceSchema = z
  .string()
  .min(1)
  .max(4_096)
  .superRefine((source, ctx) => {
    const parsed = parseRunSource(source);
    if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
  });
