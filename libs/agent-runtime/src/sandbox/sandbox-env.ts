import { scrubEnv } from '../tools/bash-tool';
import { SANDBOX_HOME } from './sandbox-policy';

/** Copied from the caller's environment when present: harmless, and tools behave oddly without them. */
const PASSED = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ', 'NO_COLOR', 'FORCE_COLOR', 'CI', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL'];

export const SANDBOX_SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface SandboxEnvOptions {
  /** Directories put in front of the system PATH (a toolchain's `bin`, mounted read-only). */
  pathPrefix?: readonly string[];
  /** Names the operator allowed through besides the defaults; secret-looking names still never pass. */
  allow?: readonly string[];
  /** Set inside as given (HEADSPACE_SESSION_ID, …); secret-looking names are dropped. */
  extra?: Readonly<Record<string, string>>;
}

/**
 * The whole environment of a sandboxed process: an allow-list, never the caller's environment
 * minus a deny-list. HOME is private to the sandbox; PATH is the system's plus the toolchains.
 */
export function sandboxEnv(base: NodeJS.ProcessEnv, options: SandboxEnvOptions = {}): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const k of [...PASSED, ...(options.allow ?? [])]) {
    const v = base[k];
    if (v !== undefined) picked[k] = v;
  }
  const env = scrubEnv({ ...picked, ...options.extra });
  return {
    ...env,
    PATH: [...(options.pathPrefix ?? []), SANDBOX_SYSTEM_PATH].join(':'),
    HOME: SANDBOX_HOME,
    USER: 'agent',
    LOGNAME: 'agent',
    SHELL: '/bin/bash',
    TMPDIR: '/tmp',
    LANG: env.LANG ?? 'C.UTF-8',
    TERM: env.TERM ?? 'dumb',
  };
}
