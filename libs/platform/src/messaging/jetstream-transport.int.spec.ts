import { randomBytes, randomUUID } from 'node:crypto';
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { defineCommand, defineEvent, defineQuery, ErrorCodes, HeadspaceError, httpStatusForCode, type EventData } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import {
  encodeEnvelope,
  eventStreamFor,
  formatPositionToken,
  HeadspaceClient,
  HsHeaders,
  natsHeaders,
  sendRequest,
  type ConsumedEvent,
  type EventContext,
  type RequestContext,
} from '@headspace/messaging';
import { currentTraceId, shutdownTelemetry, startTelemetry, withSpan } from '@headspace/telemetry';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Pool } from 'pg';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServiceApp } from '../bootstrap';
import { baseConfigSchema } from '../config/base-config.schema';
import { loadConfig } from '../config/load-config';
import { PlatformModule } from '../platform.module';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from '../platform.tokens';

const SERVICE = 'transport-spec';
const namespace = `ts-${randomBytes(4).toString('hex')}`;

const greet = defineCommand({
  service: 'cost-governor',
  name: 'greet',
  request: z.object({ name: z.string().min(1), times: z.number().int().positive() }),
  response: z.object({ greeting: z.string(), traceId: z.string().optional() }),
});
const fail = defineQuery({
  service: 'cost-governor',
  name: 'fail',
  request: z.object({ typed: z.boolean() }),
  response: z.object({}),
});
const happened = defineEvent({ service: 'cost-governor', category: 'spec', name: 'happened', schema: z.object({ n: z.number().int(), poison: z.boolean() }) });

/** What the handlers saw, for the specs to assert on. */
const seen = { greetings: [] as string[], attempts: new Map<number, number>() };

@Controller()
class SpecHandlers {
  private readonly store: EventStore;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    this.store = new EventStore({ pool, schema });
  }

  @MessagePattern(greet)
  async greet(@Payload() request: z.output<typeof greet.request>, @Ctx() ctx: RequestContext) {
    seen.greetings.push(request.name);
    await this.store.append(`greeting-${randomUUID()}`, [{ type: 'greeting.sent', data: { name: request.name } }], { expected: 'no-stream', commandId: ctx.commandId });
    return { greeting: `hello ${request.name} x${request.times}`, traceId: currentTraceId() };
  }

  @MessagePattern(fail)
  fail(request: z.output<typeof fail.request>): never {
    if (request.typed) throw new HeadspaceError(ErrorCodes.budgetNotFound, 'No budget "b-1"', { field: 'budgetId' });
    throw new Error('secret connection string postgres://u:p@db');
  }

  @EventPattern(happened, { durable: 'transport-spec-happened', maxDeliver: 3, backoffMs: [20], ackWaitMs: 5_000 })
  async onHappened(@Payload() event: ConsumedEvent<EventData<typeof happened>>, @Ctx() ctx: EventContext) {
    seen.attempts.set(event.data.n, (seen.attempts.get(event.data.n) ?? 0) + 1);
    if (event.data.poison) throw new Error(`event ${event.data.n} is poison`);
    await ctx.tx.query(`INSERT INTO transport_spec.effects (n) VALUES ($1)`, [event.data.n]);
  }
}

@Module({})
class TransportSpecModule {
  static forRoot(DATABASE_URL: string): DynamicModule {
    const env = { HTTP_PORT: '3998', DATABASE_URL, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'fatal', HS_NAMESPACE: namespace };
    const config = loadConfig(baseConfigSchema, env, SERVICE);
    return { module: TransportSpecModule, imports: [PlatformModule.forRoot({ service: SERVICE, config })], controllers: [SpecHandlers] };
  }
}

describe('JetStreamTransport: @MessagePattern and @EventPattern handlers of a hybrid service', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let nc: NatsConnection;

  beforeAll(async () => {
    startTelemetry({ serviceName: SERVICE, env: {} });
    db = await createTestDatabase('transport');
    await db.pool.query('CREATE SCHEMA IF NOT EXISTS transport_spec');
    await db.pool.query('CREATE TABLE transport_spec.effects (n int PRIMARY KEY)');
    app = await createServiceApp(TransportSpecModule.forRoot(db.url), { bufferLogs: false });
    await app.init();
    nc = app.get<NatsConnection>(NATS_CONNECTION);
  });
  afterAll(async () => {
    const jsm = nc ? await jetstreamManager(nc) : undefined;
    await jsm?.streams.delete(eventStreamFor('cost-governor').name).catch(() => undefined);
    await app?.close();
    await db?.drop();
    await shutdownTelemetry();
  });

  it('a request its contract refuses is a 4xx ValidationError naming the field, and the handler never runs', async () => {
    await expect(sendRequest(nc, greet, { name: 'Con', times: 0 })).rejects.toMatchObject({ code: ErrorCodes.validationFailed, field: 'times' });
    expect(httpStatusForCode(ErrorCodes.validationFailed)).toBe(400);
    expect(seen.greetings).not.toContain('Con');
  });

  it("a handler's HeadspaceError reaches the caller with its code and field; any other error is INTERNAL.UNEXPECTED with nothing leaked", async () => {
    await expect(sendRequest(nc, fail, { typed: true })).rejects.toMatchObject({ code: ErrorCodes.budgetNotFound, field: 'budgetId', message: 'No budget "b-1"' });
    const unexpected = sendRequest(nc, fail, { typed: false });
    await expect(unexpected).rejects.toMatchObject({ code: ErrorCodes.internal });
    await expect(unexpected).rejects.not.toThrow(/postgres|secret/);
  });

  it("a command's reply carries the log position its events reached (Hs-Position)", async () => {
    const sent = await sendRequest(nc, greet, { name: 'Al', times: 2 });
    expect(sent.result.greeting).toBe('hello Al x2');
    const { rows } = await db.pool.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text, global_position::text FROM transport_spec.events WHERE data ->> 'name' = 'Al'`,
    );
    expect(sent.position).toBe(formatPositionToken('cost-governor', { transactionId: rows[0].transaction_id, globalPosition: BigInt(rows[0].global_position) }));
  });

  it("the caller's trace continues in the handler (same trace id across the hop), through the Nest client too", async () => {
    const client = new HeadspaceClient(nc);
    const { callerTraceId, reply } = await withSpan('spec caller', {}, async () => ({
      callerTraceId: currentTraceId(),
      reply: await firstValueFrom(client.send(greet, { name: 'May', times: 1 })),
    }));
    expect(callerTraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(reply).toEqual({ greeting: 'hello May x1', traceId: callerTraceId });
  });

  it('an event handler that throws is retried up to MaxDeliver, then dead-lettered; a good event beside it is applied once', async () => {
    const js = jetstream(nc);
    const publish = async (n: number, poison: boolean) => {
      const eventId = randomUUID();
      const h = natsHeaders();
      h.set(HsHeaders.eventId, eventId);
      const envelope = {
        eventId,
        type: happened.type,
        streamId: `spec-${n}`,
        streamVersion: '1',
        globalPosition: String(n),
        schemaVersion: 1,
        data: { n, poison },
        metadata: {},
        recordedAt: new Date().toISOString(),
      };
      await js.publish(happened.subject, encodeEnvelope(envelope), { msgID: eventId, headers: h });
      return eventId;
    };
    const poisonId = await publish(1, true);
    await publish(2, false);

    const deadLetter = await waitFor(
      async () => (await db.pool.query(`SELECT event_id, deliveries, error FROM transport_spec.dead_letters WHERE consumer = 'transport-spec-happened'`)).rows[0],
      { message: 'the poison event dead-lettered' },
    );
    expect(deadLetter).toMatchObject({ event_id: poisonId, deliveries: 3 });
    expect(deadLetter.error).toMatch(/event 1 is poison/);
    expect(seen.attempts.get(1)).toBe(3);
    await waitFor(async () => (await db.pool.query('SELECT n FROM transport_spec.effects')).rows.length === 1, { message: 'the good event applied' });
    expect(seen.attempts.get(2)).toBe(1);
  });
});
