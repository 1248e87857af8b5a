import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { pinoOptions } from './logger-options';
import { redactSecrets } from './redaction';

function capture(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = pino(pinoOptions({ service: 'spec', instance: 'i-1', level: 'info' }), sink);
  return { logger, lines: () => chunks.join('').trim().split('\n').map((l) => JSON.parse(l)) };
}

describe('log redaction', () => {
  it('masks URL passwords and secret query parameters in text', () => {
    expect(redactSecrets('db postgres://app:hunter2@db:5432/x up')).toBe('db postgres://app:***@db:5432/x up');
    expect(redactSecrets('/api/1/envelope/?sentry_key=abc123&x=1')).toBe('/api/1/envelope/?sentry_key=***&x=1');
    expect(redactSecrets('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('never writes secrets: headers, secret-named keys, URL passwords in messages and errors', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer tok', 'x-api-key': 'k', accept: 'json' } },
        config: { DATABASE_URL: 'postgres://u:pw@h/db', HTTP_PORT: 3001 },
        user: { password: 'pw', name: 'al' },
        apiKey: 'sk-ant-1',
        note: 'connecting to postgres://u:pw@h/db',
      },
      'connect postgres://u:pw@h/db failed',
    );
    logger.error({ err: new Error('cannot reach postgres://u:pw@h/db') }, 'boom');

    const text = JSON.stringify(lines());
    expect(text).not.toMatch(/tok|sk-ant|:pw@|"pw"/);
    const [info, error] = lines();
    expect(info).toMatchObject({
      level: 'info',
      service: 'spec',
      msg: 'connect postgres://u:***@h/db failed',
      req: { headers: { authorization: '[REDACTED]', 'x-api-key': '[REDACTED]', accept: 'json' } },
      config: { DATABASE_URL: '[REDACTED]', HTTP_PORT: 3001 },
      user: { password: '[REDACTED]', name: 'al' },
      note: 'connecting to postgres://u:***@h/db',
    });
    expect(error).toMatchObject({ level: 'error', err: { message: 'cannot reach postgres://u:***@h/db' } });
  });
});
