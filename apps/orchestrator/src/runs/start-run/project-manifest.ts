import { ErrorCodes, HeadspaceError, importManifest, parseRunSource, PROJECT_MANIFEST_PATH, type RunManifest } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

/** The project's `.claude/team.yaml` text, when the (admitted) source is a directory holding one. A git URL is read only when it is cloned: none. */
export async function readProjectManifest(source: string): Promise<string | undefined> {
  const parsed = parseRunSource(source);
  if ('error' in parsed || parsed.kind === 'git-url') return undefined;
  try {
    return await readFile(join(source, PROJECT_MANIFEST_PATH), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The `team:` a manifest text names, when it can be read at all (the team-manager judges the rest). */
export function manifestTeamOf(yaml: string): unknown {
  try {
    const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length) return undefined;
    const value = doc.toJS({ maxAliasCount: 50 }) as unknown;
    return value && typeof value === 'object' ? (value as { team?: unknown }).team : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Imports the project's manifest as `team`'s through the team-manager's `import-manifest` — the
 * same validation as an upload, so a bad file is MANIFEST.INVALID (400) naming the field, and the
 * run is not started. A manifest of another team is refused naming `team` before anything is written.
 */
export async function importProjectManifest(nc: NatsConnection, team: string, yaml: string): Promise<RunManifest> {
  const named = manifestTeamOf(yaml);
  if (named !== undefined && named !== team) {
    throw new HeadspaceError(ErrorCodes.manifestInvalid, `${PROJECT_MANIFEST_PATH} of the run's source is for team "${String(named)}", not "${team}"`, { field: 'team' });
  }
  try {
    const imported = await request(nc, importManifest, { yaml });
    return { path: PROJECT_MANIFEST_PATH, members: imported.members.map((m) => m.name), changed: imported.changed };
  } catch (error) {
    // Said where the field is: in the project's file, not in the request.
    if (error instanceof HeadspaceError && error.code === ErrorCodes.manifestInvalid) {
      throw new HeadspaceError(error.code, `${PROJECT_MANIFEST_PATH}: ${error.message}`, { ...(error.field ? { field: error.field } : {}), details: { ...(error.details ?? {}), file: PROJECT_MANIFEST_PATH } });
    }
    throw error;
  }
}
