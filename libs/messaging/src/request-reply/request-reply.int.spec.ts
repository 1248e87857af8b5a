import { ErrorCodes, HeadspaceError, defineCommand, defineQuery } from '@headspace/contracts';
import { currentTraceId, shutdownTelemetry, startTelemetry, withSpan } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectNats, uniqueToken } from '../testing/messaging-test-kit';
import type { RequestContext } from './request-context';
import { request } from './send-request';
import { serveRequests, type RequestServer } from './serve-requests';

const greet = defineCommand({
  service: 'team-manager',
  name: uniqueToken('greet'),
  request: z.object({ name: z.string().min(1), times: z.number().int().positive().default(1) }),
  response: z.object({ greeting: z.string() }),
});
const lookup = defineQuery({
  service: 'team-manager',
  name: uniqueToken('lookup'),
  request: z.object({ id: z.string() }),
  response: z.object({ found: z.boolean() }),
});

let server: NatsConnection;
let client: NatsConnection;
const servers: RequestServer[] = [];

beforeAll(async () => {
  startTelemetry({ serviceName: 'messaging-request-spec', env: {} });
  server = await connectNats(undefined, 'request-spec-server');
  client = await connectNats(undefined, 'request-spec-client');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
afterAll(async () => {
  await server?.close();
  await client?.close();
  await shutdownTelemetry();
});

function serve<D extends typeof greet | typeof lookup>(definition: D, handler: Parameters<typeof serveRequests<D>>[2]) {
  const s = serveRequests(server, definition, handler);
  servers.push(s);
  return server.flush().then(() => s);
}

async function failureOf(promise: Promise<unknown>): Promise<HeadspaceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HeadspaceError);
  return error as HeadspaceError;
}

describe('request/reply', () => {
  it('round trip: the handler gets the parsed request, the command id, correlation and causation ids; the caller gets the result', async () => {
    const seen: RequestContext[] = [];
    await serve(greet, async (req, ctx) => {
      seen.push(ctx);
      return { greeting: `hello ${req.name} x${req.times}` };
    });
    const result = await request(client, greet, { name: 'Con' }, { commandId: 'cmd-1', causationId: 'evt-9' });
    expect(result).toEqual({ greeting: 'hello Con x1' });
    expect(seen[0]).toMatchObject({ kind: 'command', commandId: 'cmd-1', correlationId: 'cmd-1', causationId: 'evt-9', subject: greet.subject });

    await request(client, greet, { name: 'Al', times: 2 }, { correlationId: 'corr-7' });
    expect(seen[1].commandId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1].correlationId).toBe('corr-7');
  });

  it('a query carries no command id', async () => {
    let ctx: RequestContext | undefined;
    await serve(lookup, (_req, c) => {
      ctx = c;
      return { found: true };
    });
    expect(await request(client, lookup, { id: 'x' })).toEqual({ found: true });
    expect(ctx?.commandId).toBeUndefined();
    expect(ctx?.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a bad payload is answered with a ValidationError naming the field, its code intact on the caller side, and the handler is not called', async () => {
    let calls = 0;
    await serve(greet, () => {
      calls++;
      return { greeting: 'never' };
    });
    const error = await failureOf(request(client, greet, { name: 42 } as unknown as { name: string }));
    expect(error.code).toBe(ErrorCodes.validationFailed);
    expect(error.field).toBe('name');
    expect(error.details).toMatchObject({ issues: [{ field: 'name' }] });
    expect(calls).toBe(0);
  });

  it('a NUL character in any string of a request is a ValidationError naming the field, and the handler is not called', async () => {
    let calls = 0;
    await serve(greet, () => {
      calls++;
      return { greeting: 'never' };
    });
    const error = await failureOf(request(client, greet, { name: 'al\u0000ice' }));
    expect(error.code).toBe(ErrorCodes.validationFailed);
    expect(error.field).toBe('name');
    expect(calls).toBe(0);
  });

  it("a handler's HeadspaceError reaches the caller with code, field, message and details", async () => {
    await serve(greet, () => {
      throw new HeadspaceError(ErrorCodes.teamAlreadyExists, 'Team "red" already exists', { field: 'name', details: { teamId: 'team-red' } });
    });
    const error = await failureOf(request(client, greet, { name: 'red' }));
    expect(error.toWire()).toEqual({
      code: ErrorCodes.teamAlreadyExists,
      message: 'Team "red" already exists',
      field: 'name',
      details: { teamId: 'team-red' },
    });
  });

  it('an unexpected error becomes INTERNAL.UNEXPECTED without its message or stack', async () => {
    const reported: unknown[] = [];
    const s = serveRequests(
      server,
      greet,
      () => {
        throw new Error('password=hunter2 leaked from a driver');
      },
      { onError: (e) => reported.push(e) },
    );
    servers.push(s);
    await server.flush();
    const error = await failureOf(request(client, greet, { name: 'x' }));
    expect(error.code).toBe(ErrorCodes.internal);
    expect(JSON.stringify(error.toWire())).not.toMatch(/hunter2|\n\s+at /);
    expect(reported).toHaveLength(1);
  });

  it('no responders → MESSAGING.NO_RESPONDERS', async () => {
    const error = await failureOf(request(client, lookup, { id: 'nobody' }, { timeoutMs: 2_000 }));
    expect(error.code).toBe(ErrorCodes.serviceUnavailable);
    expect(error.details).toEqual({ subject: lookup.subject });
  });

  it('a slow handler → MESSAGING.TIMEOUT', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await serve(greet, async () => {
      await gate;
      return { greeting: 'too late' };
    });
    const error = await failureOf(request(client, greet, { name: 'slow' }, { timeoutMs: 150 }));
    release();
    expect(error.code).toBe(ErrorCodes.requestTimeout);
    expect(error.details).toEqual({ subject: greet.subject, timeoutMs: 150 });
  });

  it("propagates the caller's trace id to the handler (CLIENT → SERVER span)", async () => {
    let inHandler: { traceId?: string; traceparent?: string } = {};
    await serve(greet, (_req, ctx) => {
      inHandler = { traceId: currentTraceId(), traceparent: ctx.traceparent };
      return { greeting: 'traced' };
    });
    const callerTraceId = await withSpan('caller', {}, async () => {
      await request(client, greet, { name: 'May' });
      return currentTraceId();
    });
    expect(callerTraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(inHandler.traceId).toBe(callerTraceId);
    expect(inHandler.traceparent).toMatch(new RegExp(`^00-${callerTraceId}-`));
  });

  it('replicas in the queue group share the requests: each is handled exactly once', async () => {
    const handledBy: string[] = [];
    await serve(greet, () => (handledBy.push('a'), { greeting: 'a' }));
    await serve(greet, () => (handledBy.push('b'), { greeting: 'b' }));
    await Promise.all(Array.from({ length: 20 }, (_, i) => request(client, greet, { name: `n${i}` })));
    expect(handledBy).toHaveLength(20);
  });
});
