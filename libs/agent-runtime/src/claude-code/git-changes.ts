import { execFile } from 'node:child_process';

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
