import { ErrorCodes, HeadspaceError, parseRunSource, RUN_SOURCE_SHAPES } from '@headspace/contracts';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, normalize, sep } from 'node:path';

export const RUN_SOURCE_POLICY = Symbol('RUN_SOURCE_POLICY');

/** `HS_SOURCE_ROOTS`: absolute directories separated by `:` or `,`. */
export function parseSourceRoots(value: string): string[] {
  return value
    .split(/[:,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const inside = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * Which `source` a run may be made from: a git URL (cloned by the orchestrator), or a directory
 * under one of the allowed roots — never any other path of the orchestrator host (its home, /etc,
 * other runs' checkouts). A path is judged twice: as written (normalised, so `..` cannot climb out)
 * without touching the disk, so paths outside the roots are refused without saying whether they
 * exist; then by its real path (symlinks resolved), so a link under a root cannot lead outside it.
 * The runs' workspaces directory is never a source, even when it lies under a root.
 */
export class RunSourcePolicy {
  constructor(private readonly options: { roots: string[]; workspacesDir?: string }) {}

  get roots(): readonly string[] {
    return this.options.roots;
  }

  /** The source to record and use: the URL as given, or the directory's real path. Throws a typed error naming `source`. */
  async check(source: string): Promise<string> {
    const parsed = parseRunSource(source);
    if ('error' in parsed) throw refused(`Run source ${parsed.error} (${RUN_SOURCE_SHAPES})`);
    if (parsed.kind === 'git-url') return parsed.url;
    const written = normalize(parsed.path);
    const roots = this.options.roots.map((r) => normalize(r));
    if (!isAbsolute(written) || !roots.some((root) => inside(written, root))) throw refused(this.outside(source));
    const real = await realpath(written).catch(() => undefined);
    if (real === undefined || !(await stat(real).then((s) => s.isDirectory(), () => false))) {
      throw new HeadspaceError(ErrorCodes.runSourceNotFound, `Run source "${source}" is not a directory`, { field: 'source' });
    }
    const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => undefined)));
    if (!realRoots.some((root) => root !== undefined && inside(real, root))) throw refused(this.outside(source));
    const workspaces = this.options.workspacesDir && (await realpath(this.options.workspacesDir).catch(() => undefined));
    if (workspaces && inside(real, workspaces)) throw refused(`Run source "${source}" lies in the runs' workspaces directory`);
    return real;
  }

  private outside(source: string): string {
    return `Run source "${source}" is outside the allowed source roots (HS_SOURCE_ROOTS on the orchestrator: ${this.options.roots.join(', ') || 'none'}); give a git URL or a directory under one of them`;
  }
}

const refused = (message: string) => new HeadspaceError(ErrorCodes.runSourceNotAllowed, message, { field: 'source' });
