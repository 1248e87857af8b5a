import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `git status --porcelain` of a checkout as path → status line, or undefined when the directory
 * is not a git work tree (or git is missing). Used to see which files a Claude Code run touched,
 * since its `json` output lists none.
 */
export function gitStatus(cwd: string): Promise<Map<string, string> | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve(undefined);
      const out = new Map<string, string>();
      const parts = stdout.split('\0');
      for (let i = 0; i < parts.length; i++) {
        const rec = parts[i];
        if (rec.length < 4) continue;
        const status = rec.slice(0, 2);
        out.set(rec.slice(3), status);
        if (status.startsWith('R') || status.startsWith('C')) i++; // the next field is the source path
      }
      resolve(out);
    });
  });
}

/** Paths whose status differs between two snapshots (new, changed or cleaned). */
export function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const out = new Set<string>();
  for (const [path, status] of after) if (before.get(path) !== status) out.add(path);
  for (const path of before.keys()) if (!after.has(path)) out.add(path);
  return [...out].sort();
}

function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}

/** What a run may change: status, HEAD and the content of files already dirty before it. */
export interface GitSnapshot {
  status: Map<string, string>;
  head?: string;
  /** Blob hashes of the paths dirty at snapshot time (a second edit keeps the same status). */
  dirty: Map<string, string>;
}

async function hashes(cwd: string, paths: string[]): Promise<Map<string, string>> {
  const files = paths.filter((p) => statSync(join(cwd, p), { throwIfNoEntry: false })?.isFile() === true);
  if (files.length === 0) return new Map();
  const out = await git(cwd, ['hash-object', '--', ...files]);
  const lines = out?.trim().split('\n') ?? [];
  return new Map(lines.length === files.length ? files.map((f, i) => [f, lines[i]]) : []);
}

export async function gitSnapshot(cwd: string, dirtyPaths?: Iterable<string>): Promise<GitSnapshot | undefined> {
  const status = await gitStatus(cwd);
  if (!status) return undefined;
  const head = (await git(cwd, ['rev-parse', '--verify', '-q', 'HEAD']))?.trim() || undefined;
  const dirty = await hashes(cwd, [...(dirtyPaths ?? status.keys())]);
  return { status, head, dirty };
}

/**
 * Paths a run changed: uncommitted changes that differ from before (status or content) and the
 * files of the commits it made (`git diff --name-only before..after`, or the whole tree of a
 * first commit).
 */
export async function changedSince(cwd: string, before: GitSnapshot): Promise<string[] | undefined> {
  const after = await gitSnapshot(cwd, before.dirty.keys());
  if (!after) return undefined;
  const out = new Set(changedPaths(before.status, after.status));
  for (const [path, hash] of before.dirty) if (after.dirty.get(path) !== hash && after.status.has(path)) out.add(path);
  if (after.head && after.head !== before.head) {
    const diff = before.head
      ? await git(cwd, ['diff', '--name-only', '-z', `${before.head}..${after.head}`])
      : await git(cwd, ['ls-tree', '-r', '--name-only', '-z', after.head]);
    for (const p of diff?.split('\0') ?? []) if (p !== '') out.add(p);
  }
  return [...out].sort();
}
