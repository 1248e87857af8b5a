import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ErrorCodes, HeadspaceError, parseOrThrow, type RequestDefinition } from '@headspace/contracts';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { presentedToken } from '../auth/authenticate.hook';
import { canSeeTeam, type AuthenticatedRequest, type Principal } from '../auth/principal';
import type { AppConfig } from '../config';
import { TokenService } from '../tokens/token.service';
import type { ApiRoute, CallContext, ListSpec } from './api-route';
import { commandIdFor } from './command-id';
import { decodeCursor, paginate } from './pagination';
import { ReadYourWrites } from './read-your-writes';
import { wireForm } from './wire-form';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;
const PAGING_FIELDS = new Set(['limit', 'cursor']);

/** Runs one registry route: parse → scope → NATS (or local) call → page. */
@Injectable()
export class RouteDispatcher {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tokens: TokenService,
    @Optional() private readonly moduleRef?: ModuleRef,
  ) {}

  async dispatch(route: ApiRoute, req: FastifyRequest, reply?: FastifyReply): Promise<unknown> {
    const principal = (req as AuthenticatedRequest).principal as Principal;
    const key = idempotencyKey(req);
    const commandId = key === undefined ? undefined : commandIdFor(principal, key);
    const positions = new ReadYourWrites(req);
    const params = (req.params ?? {}) as Record<string, string>;
    const rawQuery = (req.query ?? {}) as Record<string, unknown>;
    const parsedQuery = route.query ? parseOrThrow(route.query, rawQuery, 'query string') : {};
    const query = Object.fromEntries(Object.entries(parsedQuery).filter(([k, v]) => !PAGING_FIELDS.has(k) && v !== undefined));
    const raw = route.build({ params, query, rawQuery, body: req.body });
    const parsed = parseOrThrow(route.request, raw, 'request');
    const paging = parsedQuery as { limit: number; cursor?: string };
    // A bad cursor is refused before the query is sent.
    if (route.list && paging.cursor !== undefined) decodeCursor(paging.cursor);

    if (typeof route.team === 'function') {
      const team = route.team(parsed as never);
      if (!canSeeTeam(principal, team)) throw forbidden(`This token may not act on team "${team}"`);
    }
    const ctx: CallContext = {
      params,
      principal,
      tokens: this.tokens,
      get: (type) => this.moduleRef!.get(type, { strict: false }),
      parsed,
      idempotencyKey: key,
      callerToken: presentedToken(req),
      send: <D extends RequestDefinition>(definition: D, body: unknown) =>
        positions.send(this.nc, definition, body, {
          commandId: definition.kind === 'command' ? commandId : undefined,
          timeoutMs: this.config.HS_REQUEST_TIMEOUT_MS,
          maxWaitMs: this.config.HS_READ_WAIT_MAX_MS,
        }),
    };
    const result = await route.call(wireForm(raw, parsed) as never, ctx);
    positions.answer(reply);
    if (!route.list) return result;
    return page(result as Record<string, unknown>, route.list, principal, paging.limit, paging.cursor);
  }
}

function page(result: Record<string, unknown>, list: ListSpec, principal: Principal, limit: number, cursor?: string) {
  const { [list.field]: all, ...rest } = result;
  const visible = list.visible as ((item: unknown, p: Principal) => boolean) | undefined;
  const items = (all as unknown[]).filter((item) => !visible || visible(item, principal));
  return { ...rest, ...paginate(items, list.key as (item: unknown) => string, limit, cursor) };
}

function idempotencyKey(req: FastifyRequest): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined || key === '') return undefined;
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw new HeadspaceError(ErrorCodes.gatewayIdempotencyKeyInvalid, 'Idempotency-Key must be 1-200 visible ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return key;
}

export const forbidden = (message: string) => new HeadspaceError(ErrorCodes.authForbidden, message);
