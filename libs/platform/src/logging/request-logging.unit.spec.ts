import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { logRequests } from './request-logging';

const lines: Array<{ level: string; line: Record<string, unknown> }> = [];
const app = Fastify();
logRequests(app, { info: (line) => lines.push({ level: 'info', line }), error: (line) => lines.push({ level: 'error', line }) });
app.get('/api/v1/runs/:id', async () => ({ ok: true }));
app.get('/api/v1/boom', async () => {
  throw new Error('boom');
});
app.get('/health/ready', async () => ({ status: 'ok' }));

afterEach(() => {
  lines.length = 0;
});

describe('request logging', () => {
  it('writes one line per request with method, route, status and duration, and no query string', async () => {
    await app.inject({ method: 'GET', url: '/api/v1/runs/r1?access_token=hst_secret_value' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', line: { msg: 'request completed', method: 'GET', path: '/api/v1/runs/r1', route: '/api/v1/runs/:id', statusCode: 200 } });
    expect(typeof lines[0]!.line.durationMs).toBe('number');
    expect(JSON.stringify(lines)).not.toContain('hst_secret_value');
  });

  it('logs a server error at error level', async () => {
    await app.inject({ method: 'GET', url: '/api/v1/boom' });
    expect(lines).toMatchObject([{ level: 'error', line: { msg: 'request errored', statusCode: 500 } }]);
  });

  it('keeps health probes out of the log', async () => {
    await app.inject({ method: 'GET', url: '/health/ready' });
    expect(lines).toEqual([]);
  });

  it('builds no line for a completed request when info is off, and still logs a server error', async () => {
    const quiet = Fastify();
    const written: string[] = [];
    let built = 0;
    logRequests(quiet, {
      info: (line) => written.push(line.msg),
      error: (line) => written.push(line.msg),
      infoEnabled: () => {
        built++;
        return false;
      },
    });
    quiet.get('/ok', async () => ({ ok: true }));
    quiet.get('/boom', async () => {
      throw new Error('boom');
    });
    await quiet.inject({ method: 'GET', url: '/ok' });
    await quiet.inject({ method: 'GET', url: '/boom' });
    expect(written).toEqual(['request errored']);
    expect(built).toBe(1);
  });
});
