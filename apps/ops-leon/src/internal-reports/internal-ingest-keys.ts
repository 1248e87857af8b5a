import { createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, opsProjectStreamId } from '@headspace/contracts';
import { EventStore, handleCommand, idFromCommand } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { hashKey, ProjectDirectory } from '../projects/project-directory';
import { projectDecider } from '../projects/project.decider';

export const INTERNAL_KEY_LABEL = 'Headspace internal reports';

/**
 * The ingest key internal reports use, so they take the ingest path as any client's do. It is
 * derived from HS_OPS_SECRET_KEY (the same key on every instance and after a restart; without it, a
 * random one per process) and registered on the project once, visibly labelled: revoking it turns
 * internal reports into that project off, and they stay off (a revoked key is never re-registered).
 */
@Injectable()
export class InternalIngestKeys {
  private readonly secret: Buffer;
  private readonly known = new Map<string, string>();

  constructor(
    private readonly store: EventStore,
    private readonly directory: ProjectDirectory,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'HS_OPS_SECRET_KEY'>,
  ) {
    this.secret = config.HS_OPS_SECRET_KEY ? Buffer.from(config.HS_OPS_SECRET_KEY) : randomBytes(32);
  }

  async keyFor(project: string): Promise<string> {
    const cached = this.known.get(project);
    if (cached) return cached;
    const publicKey = createHmac('sha256', this.secret).update(`internal-ingest-key:${project}`).digest('hex').slice(0, 32);
    const keyHash = hashKey(publicKey);
    const state = await this.directory.resolve(project, Date.now());
    const registered = Object.values(state.keys).find((key) => key.keyHash === keyHash);
    if (registered?.revoked) {
      throw new HeadspaceError(ErrorCodes.opsIngestKeyInvalid, `Internal reports into project "${project}" are off: its "${INTERNAL_KEY_LABEL}" key was revoked`, { field: 'project' });
    }
    if (!registered) await this.register(project, publicKey, keyHash);
    this.known.set(project, publicKey);
    return publicKey;
  }

  /** After ingest refused the key (revoked on another instance): look again next time. */
  forget(project: string): void {
    this.known.delete(project);
    this.directory.forget(project);
  }

  private async register(project: string, publicKey: string, keyHash: string): Promise<void> {
    const commandId = `internal-ingest-key:${project}:${keyHash}`;
    const keyId = `key_${idFromCommand(commandId, 'ops-ingest-key').replaceAll('-', '').slice(0, 16)}`;
    const command = { type: 'create-key' as const, keyId, keyHash, hint: publicKey.slice(0, 4), label: INTERNAL_KEY_LABEL, createdBy: 'ops-leon', now: new Date().toISOString() };
    await handleCommand(this.store, projectDecider, opsProjectStreamId(project), command, { commandId });
    this.directory.forget(project);
  }
}
