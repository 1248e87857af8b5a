import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitMounts } from './git-mounts';
import type { SandboxAvailability } from './sandbox-availability';
import { sandboxEnv } from './sandbox-env';
import { DEFAULT_MAX_PROCESSES, SANDBOX_UID, type WorkspaceAccess } from './sandbox-policy';
import type { Sandbox } from './sandbox-spawn';

export interface SandboxSettingsInput {
  workspace: string;
  workspaceAccess: WorkspaceAccess;
  network: boolean;
  /** The caller's environment the allow-listed names are copied from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Variables set inside as given (secret-looking names are dropped). */
  extraEnv?: Readonly<Record<string, string>>;
  /** Operator-allowed variable names besides the defaults. */
  allowEnv?: readonly string[];
  /** Toolchain installs mounted read-only with their `bin` on PATH; default the running Node's when outside /usr. */
  toolchains?: readonly string[];
  maxProcesses?: number;
}

/** The install prefix of the running Node (`<prefix>/bin/node`), when it is not the system's. */
export function nodeToolchain(execPath = process.execPath): string[] {
  const prefix = dirname(dirname(execPath));
  return prefix === '/usr' || prefix.startsWith('/usr/') ? [] : [prefix];
}

/**
 * A sandbox for one workspace on this host: the policy (with the worktree's git directory mounted
 * and its config protected) plus how this host enforces it (probed availability).
 */
export async function createSandbox(available: Extract<SandboxAvailability, { available: true }>, input: SandboxSettingsInput): Promise<Sandbox> {
  const workspace = await realpath(input.workspace);
  const git = input.workspaceAccess === 'none' ? { writable: [], protected: [] } : await gitMounts(workspace);
  const toolchains = await Promise.all((input.toolchains ?? nodeToolchain()).map((p) => realpath(p).catch(() => p)));
  return {
    bwrap: available.bwrap,
    ...(available.pidsCgroupRoot ? { pidsCgroupRoot: available.pidsCgroupRoot } : {}),
    ...(available.prlimit ? { prlimit: available.prlimit } : {}),
    policy: {
      workspace,
      workspaceAccess: input.workspaceAccess,
      network: input.network,
      env: sandboxEnv(input.env ?? process.env, { pathPrefix: toolchains.map((t) => join(t, 'bin')), ...(input.allowEnv ? { allow: input.allowEnv } : {}), ...(input.extraEnv ? { extra: input.extraEnv } : {}) }),
      readOnlyPaths: toolchains,
      writablePaths: git.writable,
      protectedPaths: git.protected,
      ...(available.userNamespace ? { uid: SANDBOX_UID } : {}),
      maxProcesses: input.maxProcesses ?? DEFAULT_MAX_PROCESSES,
      system: available.system,
    },
  };
}
