import { connect as connectTcp, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { getTeam } from '@headspace/contracts';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

interface RawAnswer {
  /** Everything the server sent before it closed the connection. */
  text: string;
  /** The socket error, if the connection was reset instead of closed. */
  error?: string;
}

/** Writes raw bytes on a fresh TCP connection and collects the answer until the server closes it. */
function rawExchange(port: number, chunks: Array<string | Buffer>): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connectTcp({ port, host: '127.0.0.1' });
    let text = '';
    socket.on('data', (data) => (text += data.toString('utf8')));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ text, error: error.code ?? error.message }));
    socket.on('close', () => resolve({ text }));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

/** Status, headers and body of each HTTP/1.1 response in a raw answer. */
function responses(text: string): Array<{ status: number; headers: Record<string, string>; body: string }> {
  const out: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const body = Buffer.from(rest.slice(end + 4)).subarray(0, length).toString('utf8');
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = Buffer.from(rest.slice(end + 4)).subarray(length).toString('utf8');
  }
  return out;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('answers the gateway gives before a route runs, on a real socket', () => {
  let h: GatewayHarness;
  let port: number;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwconn', teamManager: false });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    port = (h.http().server.address() as AddressInfo).port;
  });
  afterAll(async () => h?.close());

  it('headers over the limit are answered 431 problem+json with a code, never a reset connection', async () => {
    const request = `GET /api/v1/personas HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(256 * 1024)}\r\n\r\n`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => rawExchange(port, [request])));
    for (const answer of answers) {
      expect(answer.error).toBeUndefined();
      const [res] = responses(answer.text);
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res.body)).toMatchObject({ status: 431, code: 'GATEWAY.HEADERS_TOO_LARGE', title: expect.any(String), detail: expect.any(String) });
    }
  });

  it('a request that is not HTTP is answered 400 problem+json', async () => {
    const answer = await rawExchange(port, ['NOT HTTP AT ALL\r\n\r\n']);
    const [res] = responses(answer.text);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'GATEWAY.BAD_REQUEST' });
  });
});

describe('the gateway shutting down', () => {
  let nc: NatsConnection;
  afterAll(async () => {
    await nc?.close();
  });

  /** A raw connection whose answers are collected until the server closes it. */
  function openConnection(port: number) {
    const socket: Socket = connectTcp({ port, host: '127.0.0.1' });
    const state = { text: '', error: undefined as string | undefined, closed: false, socket };
    socket.on('data', (data) => (state.text += data.toString('utf8')));
    socket.on('error', (e: NodeJS.ErrnoException) => (state.error = e.code));
    socket.on('close', () => (state.closed = true));
    return state;
  }

  it('a request read while the gateway closes is answered 503 problem+json with Retry-After, and the one in flight is answered with Connection: close', async () => {
    const h = await startGatewayHarness({ label: 'gwclose', teamManager: false });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    const port = (h.http().server.address() as AddressInfo).port;
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    const held: Msg[] = [];
    nc.subscribe(getTeam.subject, {
      callback: (_error, msg) => {
        held.push(msg);
      },
    });
    await nc.flush();
    const get = (team: string) => `GET /api/v1/teams/${team} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.adminToken}\r\n`;

    // One request waits on its NATS answer; another connection has sent half of its headers.
    const inFlight = openConnection(port);
    inFlight.socket.write(`${get('first')}\r\n`);
    await until(() => held.length === 1, 'the first request to reach NATS');
    const late = openConnection(port);
    late.socket.write(get('second'));
    let readWhileClosing = 0;
    h.http().server.on('request', () => readWhileClosing++);

    const closing = h.close();
    await until(() => !h.http().server.listening, 'the server to stop listening');
    late.socket.write('\r\n');
    await until(() => late.closed, 'the late connection to be answered and closed');
    held[0].respond(JSON.stringify({ ok: false, error: { code: 'TEAM.NOT_FOUND', message: 'Team "first" not found' } }));
    await until(() => inFlight.closed, 'the first connection to be answered and closed');
    await closing;

    expect(readWhileClosing).toBe(1);
    expect(late.error).toBeUndefined();
    const [refused] = responses(late.text);
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toMatchObject({ status: 503, code: 'GATEWAY.SHUTTING_DOWN', instance: '/api/v1/teams/second' });
    expect(inFlight.error).toBeUndefined();
    const [answered] = responses(inFlight.text);
    expect(answered.status).toBe(404);
    expect(answered.headers.connection).toBe('close');
  });
});
