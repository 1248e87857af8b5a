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
    expect(redactSecrets('db postgres://app:hunter2@db:5432/x up')).toBe('db postgres://app:[redacted:password]@db:5432/x up');
    expect(redactSecrets('/api/1/envelope/?sentry_key=abc123&x=1')).toBe('/api/1/envelope/?sentry_key=[redacted:query-param]&x=1');
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
      msg: 'connect postgres://u:[redacted:password]@h/db failed',
      req: { headers: { authorization: '[REDACTED]', 'x-api-key': '[REDACTED]', accept: 'json' } },
      config: { DATABASE_URL: '[REDACTED]', HTTP_PORT: 3001 },
      user: { password: '[REDACTED]', name: 'al' },
      note: 'connecting to postgres://u:[redacted:password]@h/db',
    });
    expect(error).toMatchObject({ level: 'error', err: { message: 'cannot reach postgres://u:[redacted:password]@h/db' } });
  });

  it('scrubs key formats from messages and nested fields the way recorded events are scrubbed', () => {
    const { logger, lines } = capture();
    const key = ['sk', 'ant', 'api03', 'Zq8Lm3Nv5Bx7Cw9Dy1Ez2Fa4Gb6Hc8'].join('-');
    const awsId = 'AKIA' + 'IOSFODNN7EXAMPLE';
    const awsSecret = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYEXAMPLEKEY';
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    logger.warn({ tool: { name: 'Bash', output: { text: `${awsId} ${awsSecret}\n${pem}` } } }, `tool printed ${key}`);
    const [line] = lines();
    const text = JSON.stringify(line);
    for (const secret of [key, awsId, awsSecret, 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC']) expect(text).not.toContain(secret);
    expect(line).toMatchObject({
      msg: 'tool printed [redacted:anthropic-key]',
      tool: { output: { text: '[redacted:aws-access-key-id] [redacted:aws-secret-access-key]\n[redacted:private-key]' } },
    });
  });
});
