import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { glob as tinyglob } from 'tinyglobby';

/** Output limits shared by the file tools. */
export const MAX_LINE_CHARS = 2000;
export const MAX_RESULT_CHARS = 30_000;
const DEFAULT_IGNORE = ['**/node_modules/**', '**/.git/**'];

/** Caps text at `max` characters with a note saying how much was left out. */
export function capText(text: string, max = MAX_RESULT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} of ${text.length} characters not shown]`;
}

export function capList(items: string[], max: number): string {
  const shown = items.slice(0, max);
  const note = items.length > max ? `\n[${items.length - max} more results not shown; narrow the search]` : '';
  return capText(shown.join('\n') + note);
}

export function joinRel(base: string, p: string): string {
  return base === '.' ? p : `${base}/${p}`;
}

/**
 * Files under `dirAbs` matching the globs (symlinks not followed, node_modules and .git skipped),
 * relative to it and sorted. Each hit is checked again to be really inside `rootAbs`, so a
 * directory swapped for a symlink during the walk cannot list names from elsewhere.
 */
export async function listFiles(dirAbs: string, patterns: string[], rootAbs: string): Promise<string[] | 'not-a-directory'> {
  const isDir = await stat(dirAbs).then((s) => s.isDirectory(), () => false);
  if (!isDir) return 'not-a-directory';
  const files = await tinyglob(patterns, {
    cwd: dirAbs,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: DEFAULT_IGNORE,
    expandDirectories: false,
  });
  const root = await realpath(rootAbs);
  const inside = await Promise.all(
    files.map(async (f) => {
      const real = await realpath(path.join(dirAbs, f)).catch(() => undefined);
      return real !== undefined && (real === root || real.startsWith(root + path.sep));
    }),
  );
  return files.filter((_, i) => inside[i]).sort();
}
