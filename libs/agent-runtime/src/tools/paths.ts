import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
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

/**
 * What a file tool wants from the file: read it, rewrite an existing one in place, or create/
 * overwrite it (missing parent directories are created).
 */
export type OpenMode = 'read' | 'update' | 'write';

export interface OpenedWorkspaceFile extends WorkspacePath {
  handle: FileHandle;
  /** True when `write` created the file (it did not exist before). */
  created: boolean;
}

/**
 * Test seam: runs between the path check and the open, so a spec can swap a symlink in exactly
 * where a racing process would. Never set outside specs.
 */
export const workspaceOpenProbe: { beforeOpen?: (absolute: string) => void | Promise<void> } = {};

const PROC_FD = '/proc/self/fd';
const hasProcFd = existsSync(PROC_FD);
const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;
const errno = (e: unknown) => (e as NodeJS.ErrnoException)?.code ?? '';

/**
 * Opens a workspace file for a tool without a resolve-then-open race. The path is checked with
 * resolveInWorkspace, then opened again from the (real) workspace root one component at a time,
 * each relative to the directory fd opened before (`/proc/self/fd/<dir>/<name>`, Linux's openat)
 * with O_NOFOLLOW: a symlink swapped into any component after the check fails the open instead
 * of being followed out of the workspace. Missing parents are created the same way, and writes
 * go through the returned fd, so the bytes land in the file that was checked. O_NONBLOCK keeps a
 * FIFO planted in the workspace from hanging the tool. The caller closes `handle`.
 */
export async function openInWorkspace(workspaceRoot: string, target: string, mode: OpenMode): Promise<OpenedWorkspaceFile> {
  const checked = await resolveInWorkspace(workspaceRoot, target);
  const root = await realpath(workspaceRoot);
  await workspaceOpenProbe.beforeOpen?.(checked.absolute);
  const parts = checked.relative === '.' ? [] : checked.relative.split('/');
  if (!hasProcFd) return openByPath(root, checked, target, mode);

  let dir = await open(root, O_RDONLY | O_DIRECTORY);
  try {
    for (const name of parts.slice(0, -1)) {
      const next = await openDirAt(dir, name, mode === 'write', target);
      await dir.close();
      dir = next;
    }
    if (parts.length === 0) return { ...checked, handle: await open(root, O_RDONLY | O_DIRECTORY), created: false };
    const at = `${PROC_FD}/${dir.fd}/${parts[parts.length - 1]}`;
    const { handle, created } = await openFinal(at, mode, target);
    await assertInside(handle, root, target);
    return { ...checked, handle, created };
  } finally {
    await dir.close();
  }
}

async function openDirAt(dir: FileHandle, name: string, create: boolean, target: string): Promise<FileHandle> {
  const at = `${PROC_FD}/${dir.fd}/${name}`;
  try {
    return await open(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    if (errno(e) === 'ENOENT' && create) {
      await mkdir(at).catch((err: unknown) => {
        if (errno(err) !== 'EEXIST') throw err;
      });
      return openDirAt(dir, name, false, target);
    }
    // O_DIRECTORY|O_NOFOLLOW on a symlink may fail with ENOTDIR rather than ELOOP.
    const isLink = errno(e) === 'ENOTDIR' && (await lstat(at).then((st) => st.isSymbolicLink(), () => false));
    throw isLink ? outside(target, 'a part of it was replaced by a symlink after it was checked') : translateOpenError(e, target);
  }
}

async function openFinal(at: string, mode: OpenMode, target: string): Promise<{ handle: FileHandle; created: boolean }> {
  const safe = O_NOFOLLOW | O_NONBLOCK;
  try {
    if (mode === 'read') return { handle: await open(at, O_RDONLY | safe), created: false };
    if (mode === 'update') return { handle: await open(at, O_RDWR | safe), created: false };
    try {
      return { handle: await open(at, O_WRONLY | O_CREAT | O_EXCL | safe, 0o644), created: true };
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e;
      return { handle: await open(at, O_WRONLY | safe), created: false };
    }
  } catch (e) {
    throw translateOpenError(e, target);
  }
}

/** ELOOP from O_NOFOLLOW means a component became a symlink after the check. */
function translateOpenError(e: unknown, target: string): unknown {
  if (errno(e) === 'ELOOP') return outside(target, 'a part of it was replaced by a symlink after it was checked');
  return e;
}

/** Belt and braces: the kernel's name for the opened fd must be inside the workspace. */
async function assertInside(handle: FileHandle, root: string, target: string): Promise<void> {
  const real = await readlink(`${PROC_FD}/${handle.fd}`).catch(() => undefined);
  if (real !== undefined && real !== root && !real.startsWith(root + path.sep)) {
    await handle.close();
    throw outside(target, 'it was moved outside the workspace while being opened');
  }
}

/**
 * Without /proc (not Linux): open by path with O_NOFOLLOW, then compare the opened file with the
 * real path re-checked inside the workspace (same device and inode).
 */
async function openByPath(root: string, checked: WorkspacePath, target: string, mode: OpenMode): Promise<OpenedWorkspaceFile> {
  if (mode === 'write') await mkdir(path.dirname(checked.absolute), { recursive: true });
  const { handle, created } = await openFinal(checked.absolute, mode, target);
  try {
    const again = await resolveInWorkspace(root, checked.absolute);
    const [opened, named] = await Promise.all([handle.stat(), stat(again.absolute)]);
    if (opened.dev !== named.dev || opened.ino !== named.ino) throw outside(target, 'it changed while being opened');
  } catch (e) {
    await handle.close();
    throw e;
  }
  return { ...checked, handle, created };
}

function outside(target: string, why: string): HeadspaceError {
  return new HeadspaceError(
    ErrorCodes.toolPathOutsideWorkspace,
    `Refused: path "${target}" is not allowed because ${why}. Only paths inside the workspace can be used.`,
    { field: 'path' },
  );
}
