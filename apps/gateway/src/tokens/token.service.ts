import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, type ApiTokenView, createApiTokenRequestSchema } from '@headspace/contracts';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { AppConfig } from '../config';
import { openToken, requestFingerprint, sealToken, TOKEN_REPLAY_WINDOW_SECONDS, type TokenRequestKey } from './token-replay';
import { writeAdminTokenFile } from './admin-token-file';
import { generateToken, hashToken, sameHash } from './token-secret';
import { TokenRepository, type PriorTokenRequest, type StoredToken } from './token.repository';

export type CreateTokenInput = z.output<typeof createApiTokenRequestSchema>;

const view = ({ hash: _hash, ...token }: StoredToken): ApiTokenView => token;

/** last_used_at is written at most this often per token: not a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

/** Issues, lists, revokes and verifies API tokens; seeds the first admin token on first start. */
@Injectable()
export class TokenService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Tokens');
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly repository: TokenRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.repository.withFirstStartLock(async (hasActive) => {
      const fromEnv = this.config.HS_ADMIN_TOKEN;
      if (fromEnv) {
        if (await this.repository.findActiveByHash(hashToken(fromEnv))) return;
        // A revoked HS_ADMIN_TOKEN stays revoked while other tokens exist; a new one is stored.
        if (hasActive && (await this.repository.knownHash(hashToken(fromEnv)))) return;
        // Locked out (no active token at all) and the operator names this token: honour it again.
        if (await this.repository.reactivate(hashToken(fromEnv))) {
          this.logger.warn('no active API token: re-activated the revoked HS_ADMIN_TOKEN');
          return;
        }
        await this.store({ name: 'admin (HS_ADMIN_TOKEN)', role: 'admin', teams: '*', projects: '*' }, fromEnv);
        this.logger.log('stored the admin token from HS_ADMIN_TOKEN');
        return;
      }
      if (hasActive) return;
      const token = generateToken();
      // The file first: if it cannot be written the start fails and no token nobody can read is stored.
      const file = await writeAdminTokenFile(this.config.HS_ADMIN_TOKEN_FILE, token).catch((error: Error) => {
        throw new Error(`cannot write the first admin token to HS_ADMIN_TOKEN_FILE (${this.config.HS_ADMIN_TOKEN_FILE}): ${error.message}`);
      });
      const stored = await this.store({ name: 'first admin', role: 'admin', teams: '*', projects: '*' }, token);
      // Where it is, never what it is: stdout and logs end up in log storage.
      process.stdout.write(`\nHeadspace gateway: first start, no API tokens existed. The admin token is in ${file} (mode 0600).\n\n`);
      this.logger.log(`created the first admin token ${stored.id} in ${file}`);
    });
  }

  async create(input: CreateTokenInput): Promise<{ token: string; view: ApiTokenView }> {
    const token = generateToken();
    return { token, view: await this.store(input, token) };
  }

  /**
   * `create` for a request with an Idempotency-Key: the first one mints the token, a retry by the same
   * caller within the replay window answers the same id and plaintext, one that asks for another
   * token with the same key is refused, and after the window the key still refuses to mint again.
   */
  async createOnce(input: CreateTokenInput, key: TokenRequestKey): Promise<{ token: string; view: ApiTokenView }> {
    const fingerprint = requestFingerprint(input);
    await this.repository.forgetSealsBefore(TOKEN_REPLAY_WINDOW_SECONDS);
    const prior = await this.repository.findRequest(key.issuerTokenId, key.idempotencyKey, TOKEN_REPLAY_WINDOW_SECONDS);
    if (prior) return replay(prior, fingerprint, key);
    const token = generateToken();
    const id = randomUUID();
    const stored = await this.repository.insertForRequest(
      { id, ...input, hash: hashToken(token) },
      { issuerTokenId: key.issuerTokenId, idempotencyKey: key.idempotencyKey, fingerprint, sealedToken: sealToken(token, id, key) },
    );
    if (stored) return { token, view: view(stored) };
    const winner = await this.repository.findRequest(key.issuerTokenId, key.idempotencyKey, TOKEN_REPLAY_WINDOW_SECONDS);
    if (!winner) throw new Error('the token request that took this Idempotency-Key is gone');
    return replay(winner, fingerprint, key);
  }

  async list(): Promise<ApiTokenView[]> {
    return (await this.repository.list()).map(view);
  }

  async revoke(id: string): Promise<void> {
    if (await this.repository.revoke(id)) return;
    if (!(await this.repository.exists(id))) throw new HeadspaceError(ErrorCodes.apiTokenNotFound, `No API token ${id}`, { field: 'id' });
  }

  /** The principal of an active token, or undefined for an unknown or revoked one. */
  async verify(token: string): Promise<Principal | undefined> {
    const hash = hashToken(token);
    const stored = await this.repository.findActiveByHash(hash);
    if (!stored || !sameHash(stored.hash, hash)) return undefined;
    this.touch(stored.id);
    return { tokenId: stored.id, name: stored.name, role: stored.role, teams: stored.teams, projects: stored.projects };
  }

  private touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    this.repository.touch(id).catch((error: Error) => this.logger.warn(`could not record token use: ${error.message}`));
  }

  private async store(input: CreateTokenInput, token: string): Promise<ApiTokenView> {
    const stored = await this.repository.insert({ id: randomUUID(), ...input, hash: hashToken(token) });
    return view(stored);
  }
}

function replay(prior: PriorTokenRequest, fingerprint: Buffer, key: TokenRequestKey): { token: string; view: ApiTokenView } {
  if (!sameHash(prior.fingerprint, fingerprint)) {
    throw new HeadspaceError(ErrorCodes.gatewayIdempotencyKeyReused, 'This Idempotency-Key was used for a different token request; use a new key', {
      field: 'Idempotency-Key',
    });
  }
  const token = prior.sealedToken ? openToken(prior.sealedToken, prior.token.id, key) : undefined;
  if (token === undefined) {
    throw new HeadspaceError(
      ErrorCodes.gatewayIdempotencyReplayExpired,
      `This Idempotency-Key minted token ${prior.token.id}, which can no longer be shown; revoke it if it was lost and use a new key`,
      { field: 'Idempotency-Key' },
    );
  }
  return { token, view: view(prior.token) };
}
