import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { ReadPositions } from './read-positions';

/** A stand-in gateway: commands answer a position, reads echo the min-position they were sent. */
describe('the CLI reads its own writes across invocations', () => {
  let server: Server;
  let endpoint: string;
  let next = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST') res.setHeader('headspace-position', `team-manager:${100 + next}:${++next}`);
      res.end(JSON.stringify({ minPosition: req.headers['headspace-min-position'] ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const client = (path: string, now = Date.now) => new ApiClient(endpoint, undefined, new ReadPositions(path, endpoint, now));

  it('a read after a write in another invocation passes the write position (the furthest per service)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hs-pos-')), 'positions.json');
    expect(await client(path).get('/api/v1/teams/a/tasks')).toEqual({ minPosition: null });
    await client(path).post('/api/v1/teams/a/tasks', { subject: 'one' });
    await client(path).post('/api/v1/teams/a/tasks', { subject: 'two' });
    expect(await client(path).get('/api/v1/teams/a/tasks')).toEqual({ minPosition: `team-manager:${100 + next - 1}:${next}` });
  });

  it('forgets a position after a minute', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hs-pos-')), 'positions.json');
    await client(path).post('/api/v1/teams/a/tasks', { subject: 'old' });
    expect(await client(path, () => Date.now() + 61_000).get('/api/v1/teams/a/tasks')).toEqual({ minPosition: null });
  });
});
