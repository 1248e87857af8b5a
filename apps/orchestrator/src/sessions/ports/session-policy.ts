import { policyFromManifestMember, type ToolPermissionPolicy } from '@headspace/agent-runtime';
import type { EventData, sessionStarted } from '@headspace/contracts';

type Started = EventData<typeof sessionStarted>;

const READ_ONLY = ['Read', 'Glob', 'Grep'];

/**
 * What each kind of session may do by default. Robbo's workshop and review and Gavin's
 * decomposition only read (Robbo never gets code-writing tools); Verner writes tests and nothing
 * else; builders may use every tool. Team tools are always offered.
 */
export function kindPolicy(kind: Started['kind']): ToolPermissionPolicy {
  switch (kind) {
    case 'workshop':
    case 'review':
    case 'decomposition':
      return { tools: READ_ONLY };
    case 'qa':
      return { tools: [...READ_ONLY, 'Write', 'Edit', 'MultiEdit', 'Bash'], owns: ['test/**', 'tests/**', '**/*.test.*', '**/*.spec.*'], ownsPolicy: 'refuse' };
    case 'task':
      return {};
  }
}

/** A persona's entry in its team's manifest (`tools` allowlist, `owns` globs, role). */
export interface ManifestMember {
  role: string;
  tools: readonly string[];
  owns: readonly string[];
}

/**
 * The tool policy of a session. What its start pinned (`tools`, `ownedPaths`) wins; a builder
 * session otherwise runs under its persona's team-manifest entry (writes outside `owns` need a lock
 * the persona holds); everything else gets its kind's default. The kind's rule beats the manifest
 * so a reviewer listed with write tools still only reads while reviewing.
 */
export function sessionPolicy(started: Pick<Started, 'kind' | 'tools' | 'ownedPaths'>, member?: ManifestMember): ToolPermissionPolicy {
  if (started.tools || started.ownedPaths) {
    return { ...(started.tools ? { tools: started.tools } : {}), ...(started.ownedPaths ? { owns: started.ownedPaths, ownsPolicy: 'require-lock' } : {}) };
  }
  if (started.kind === 'task' && member) return policyFromManifestMember(member);
  return kindPolicy(started.kind);
}
