import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

export interface WorkspacePath {
  /** Absolute path with every existing component resolved through realpath. */
  absolute: string;
  /** Posix path relative to the (real) workspace root; `.` for the root itself. */
  relative: string;
}

const isMissing = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/**
 * Resolves `target` (relative to the workspace, or absolute) to a real path inside the workspace.
 * The nearest existing ancestor is resolved with realpath, so `..` traversal, absolute paths
 * elsewhere and symlinks (anywhere on the way) that leave the root are all refused with
 * `TOOL.PATH_OUTSIDE_WORKSPACE`. A dangling symlink is refused too: writing through it would
 * create a file wherever it points.
 */
export async function resolveInWorkspace(workspaceRoot: string, target: string): Promise<WorkspacePath> {
  if (typeof target !== 'string' || target.length === 0 || target.includes('\0')) {
    throw new HeadspaceError(ErrorCodes.toolPathOutsideWorkspace, `Invalid path ${JSON.stringify(target)}.`, { field: 'path' });
  }
  const root = await realpath(workspaceRoot);
  const candidate = path.resolve(workspaceRoot, target);

  let existing = candidate;
  const rest: string[] = [];
  let resolved: string;
  for (;;) {
    try {
      resolved = await realpath(existing);
      break;
    } catch (e) {
      if (!isMissing(e)) throw e;
      const isDanglingLink = await lstat(existing).then((s) => s.isSymbolicLink(), () => false);
      if (isDanglingLink) throw outside(target, 'it is a symlink to a missing target');
      const parent = path.dirname(existing);
      if (parent === existing) throw outside(target, 'no part of it exists');
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
  const absolute = path.join(resolved, ...rest);
  if (absolute !== root && !absolute.startsWith(root + path.sep)) {
    const lexicallyInside = (base: string) => candidate === base || candidate.startsWith(base + path.sep);
    const why = lexicallyInside(path.resolve(workspaceRoot)) || lexicallyInside(root)
      ? 'it resolves through a symlink to a place outside the workspace'
      : 'it is outside the workspace';
    throw outside(target, why);
  }
  const relative = path.relative(root, absolute).split(path.sep).join('/') || '.';
  return { absolute, relative };
}

function outside(target: string, why: string): HeadspaceError {
  return new HeadspaceError(
    ErrorCodes.toolPathOutsideWorkspace,
    `Refused: path "${target}" is not allowed because ${why}. Only paths inside the workspace can be used.`,
    { field: 'path' },
  );
}
