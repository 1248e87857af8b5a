import { randomBytes } from 'node:crypto';
import { resolveBudgetPause, setBudget, setQuota, setSubjectNamespace, type RequestDefinition } from '@headspace/contracts';
import { JetStreamTransport } from '@headspace/messaging';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyRequest } from 'fastify';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal';
import type { AppConfig } from '../config';
import type { TokenService } from '../tokens/token.service';
import { apiRoutes } from './api-routes';
import { RouteDispatcher } from './route-dispatcher.service';

const admin: Principal = { tokenId: 'spec', name: 'spec', role: 'admin', teams: '*', projects: '*' };

/** What the serving side of a contract receives when a route is called: real NATS, a stand-in handler. */
describe('route dispatcher: a request reaches the serving side in its z.input form', () => {
  let nc: NatsConnection;
  let dispatcher: RouteDispatcher;
  let transport: JetStreamTransport;
  // The strategy's event consumers would use it; these stand-ins answer requests only, so it never connects.
  const pool = new Pool({ connectionString: process.env.DATABASE_URL });
  const received = new Map<string, unknown>();

  const serve = <D extends RequestDefinition>(definition: D, reply: unknown) =>
    transport.addHandler(definition, async (request: unknown) => {
      received.set(definition.name, request);
      return reply;
    });
  const dispatch = (operationId: string, params: Record<string, string>, body: unknown) => {
    const route = apiRoutes.find((r) => r.operationId === operationId)!;
    return dispatcher.dispatch(route, { principal: admin, headers: {}, params, query: {}, body } as unknown as FastifyRequest);
  };

  beforeAll(async () => {
    setSubjectNamespace(`gwdispatch-${randomBytes(3).toString('hex')}`);
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    dispatcher = new RouteDispatcher(nc, { HS_REQUEST_TIMEOUT_MS: 5_000 } as AppConfig, {} as TokenService);
    transport = new JetStreamTransport({ connection: nc, pool, schema: 'gateway' });
    serve(setBudget, { budgetId: 'team.alpha', streamVersion: '1' });
    serve(setQuota, { streamVersion: '1' });
    serve(resolveBudgetPause, {
      budget: { budgetId: 'team.alpha', scope: { kind: 'team', team: 'alpha' }, status: 'active', period: 'none', periodStart: '', spentMicros: '0', reservedMicros: '0', warned: false },
      streamVersion: '2',
    });
    await new Promise<void>((resolve, reject) => transport.listen((error) => (error ? reject(error) : resolve())));
  });
  afterAll(async () => {
    await transport?.close();
    await nc?.close();
    await pool.end();
  });

  it('converts each USD amount to micros once, however many times the contract is parsed on the way', async () => {
    await dispatch('setBudget', {}, { scope: { kind: 'team', team: 'alpha' }, limitUsd: '10.00', setBy: 'ops' });
    expect(received.get(setBudget.name)).toMatchObject({ limitUsd: '10000000', period: 'none' });
    await dispatch('resolveBudgetPause', { budgetId: 'team.alpha' }, { decision: 'approve', addUsd: 1, resolvedBy: 'ops' });
    expect(received.get(resolveBudgetPause.name)).toMatchObject({ addUsd: '1000000' });
    await dispatch('setQuota', { project: 'apollo' }, { weeklyLimitUsd: '25.5', setBy: 'ops' });
    expect(received.get(setQuota.name)).toEqual({ project: 'apollo', weeklyLimitUsd: '25500000', setBy: 'ops' });
  });
});
