import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, OPS_PROJECT_REGISTRY_STREAM, opsProjectStreamId } from '@headspace/contracts';
import { EventStore, foldEvents } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { acceptsKey, projectDecider, registryDecider, type ActiveProject, type ProjectEvent, type ProjectState } from './project.decider';

export const hashKey = (publicKey: string) => createHash('sha256').update(publicKey).digest('hex');

interface Cached {
  state: ProjectState;
  loadedAt: number;
}

/**
 * Projects as the ingest path needs them: by name or numeric DSN id, with their key hashes, folded
 * from their streams (read-your-writes: a key works as soon as create-ingest-key answered) and
 * cached for HS_OPS_STATE_CACHE_MS so an ingest burst reads nothing. A key the cache does not know
 * is looked up once more on the stream before it is refused; a revocation made here drops the
 * entry at once, one made on another instance takes effect within the cache time.
 */
@Injectable()
export class ProjectDirectory {
  private readonly byName = new Map<string, Cached>();
  private ids: Record<string, string> = {};

  constructor(
    private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'HS_OPS_STATE_CACHE_MS'>,
  ) {}

  /** The project of a name or numeric id, or OPS.PROJECT_NOT_FOUND. */
  async resolve(ref: string, nowMs = Date.now()): Promise<ActiveProject> {
    const name = /^\d+$/.test(ref) ? await this.nameOf(ref) : ref;
    const state = name ? await this.load(name, nowMs, false) : ({ status: 'none' } as const);
    if (state.status === 'none') throw new HeadspaceError(ErrorCodes.opsProjectNotFound, `No project "${ref}"`, { field: 'project' });
    return state;
  }

  /** The project, when `publicKey` is one of its live keys; OPS.INGEST_KEY_INVALID otherwise. Keys are compared by SHA-256. */
  async authorise(ref: string, publicKey: string, nowMs = Date.now()): Promise<ActiveProject> {
    const project = await this.resolve(ref, nowMs);
    const hash = hashKey(publicKey);
    if (acceptsKey(project, hash)) return project;
    const fresh = await this.load(project.project, nowMs, true);
    if (acceptsKey(fresh, hash)) return fresh as ActiveProject;
    throw new HeadspaceError(ErrorCodes.opsIngestKeyInvalid, `The ingest key is not a valid key of project "${ref}"`, { field: 'publicKey' });
  }

  forget(project: string): void {
    this.byName.delete(project);
  }

  private async load(name: string, nowMs: number, force: boolean): Promise<ProjectState> {
    const cached = this.byName.get(name);
    if (cached && !force && nowMs - cached.loadedAt < this.config.HS_OPS_STATE_CACHE_MS) return cached.state;
    const events = await this.store.readStream(opsProjectStreamId(name));
    const state = foldEvents(projectDecider, events as unknown as ProjectEvent[]);
    // Unknown names are not cached: a project created a moment later must be found.
    if (state.status === 'active') this.byName.set(name, { state, loadedAt: nowMs });
    if (this.byName.size > 10_000) this.byName.delete(this.byName.keys().next().value as string);
    return state;
  }

  private async nameOf(projectId: string): Promise<string | undefined> {
    const known = Object.entries(this.ids).find(([, id]) => id === projectId);
    if (known) return known[0];
    const registry = foldEvents(registryDecider, (await this.store.readStream(OPS_PROJECT_REGISTRY_STREAM)) as unknown as ProjectEvent[]);
    this.ids = registry.ids;
    return Object.entries(this.ids).find(([, id]) => id === projectId)?.[0];
  }
}
