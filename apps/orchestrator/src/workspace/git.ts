import { execFile } from 'node:child_process';

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

/** Git needs an identity to commit, and must never stop to ask for anything. */
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Headspace',
  GIT_AUTHOR_EMAIL: 'headspace@localhost',
  GIT_COMMITTER_NAME: 'Headspace',
  GIT_COMMITTER_EMAIL: 'headspace@localhost',
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
};

/** Runs git with an argument list (never a shell string) in `cwd`; resolves stdout. */
export function git(cwd: string, args: string[], options: { allowFailure?: boolean } = {}): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'init.defaultBranch=main', ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      if (error && !options.allowFailure) return reject(new GitError(args, code, String(stderr)));
      resolve({ stdout: String(stdout), code });
    });
  });
}

/** Paths from `git status --porcelain=v1 -z` (renames give the new path). */
export function parsePorcelain(output: string): Array<{ status: string; path: string }> {
  const entries: Array<{ status: string; path: string }> = [];
  const parts = output.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.length < 4) continue;
    const status = part.slice(0, 2);
    entries.push({ status, path: part.slice(3) });
    if (status[0] === 'R' || status[0] === 'C') i++; // the original path follows
  }
  return entries;
}
