import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { ExitCode } from './exit-codes';
import { tail } from './tail';

/**
 * `tail` against a local SSE server over real sockets: the server cuts the first connection after
 * one event, and the CLI must come back with that event's id in Last-Event-ID.
 */
describe('headspace tail reconnects', () => {
  let server: Server;
  let url: string;
  const requests: IncomingMessage[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req);
      if (req.headers.authorization !== 'Bearer good') {
        res.writeHead(401, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ status: 401, detail: 'The token is unknown or revoked' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const n = requests.filter((r) => r.headers.authorization === 'Bearer good').length;
      const event = (id: string, summary: string) => `id: ${id}\nevent: task.claimed\ndata: ${JSON.stringify({ eventId: id, type: 'task.claimed', time: new Date().toISOString(), team: 'apollo', summary })}\n\n`;
      if (n === 1) res.end(`retry: 10\n\n${event('v1:team_manager=1', 'first')}`);
      else res.write(event('v1:team_manager=2', 'second'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('resumes with Last-Event-ID after the connection drops, and stops on abort', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const controller = new AbortController();
    const io = { out: { write: (s: string) => out.push(s) }, err: { write: (s: string) => err.push(s) } } as never;
    const running = tail(new ApiClient(url, 'good'), io, { team: 'apollo', types: 'task.*', signal: controller.signal });
    await expect.poll(() => out.length, { timeout: 10_000 }).toBe(2);
    controller.abort();
    await running;
    expect(out.join('')).toMatch(/first\n.*second\n$/);
    const good = requests.filter((r) => r.headers.authorization === 'Bearer good');
    expect(good[0].headers['last-event-id']).toBeUndefined();
    expect(good[0].url).toBe('/api/v1/stream?team=apollo&types=task.*');
    expect(good[1].headers['last-event-id']).toBe('v1:team_manager=1');
    expect(err.join('')).toContain('reconnecting where it left off');
  });

  it('ends with the auth exit code instead of retrying a 401', async () => {
    const before = requests.length;
    await expect(tail(new ApiClient(url, 'bad'), { out: { write: () => true }, err: { write: () => true } } as never, { signal: new AbortController().signal })).rejects.toMatchObject({
      exitCode: ExitCode.auth,
    });
    expect(requests.length).toBe(before + 1);
  });
});
