import type { ArgumentsHost } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, httpStatusForCode } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { ProblemDetailsFilter } from './problem-details.filter';

/** What the filter wrote to the reply: status, headers and the problem body. */
function replyTo(exception: unknown) {
  const written = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const reply = {
    header(name: string, value: string) {
      written.headers[name.toLowerCase()] = value;
      return reply;
    },
    hasHeader: (name: string) => name.toLowerCase() in written.headers,
    status(code: number) {
      written.status = code;
      return reply;
    },
    send(body: unknown) {
      written.body = body;
      return reply;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ url: '/api/v1/teams/alpha/tasks' }) }) } as unknown as ArgumentsHost;
  new ProblemDetailsFilter().catch(exception, host);
  return written;
}

describe('a command that gave up after its retries', () => {
  it('is 503 with Retry-After (the service was busy), not 409 (the client’s own conflict)', () => {
    expect(httpStatusForCode(ErrorCodes.retriesExhausted)).toBe(503);
    const written = replyTo(new HeadspaceError(ErrorCodes.retriesExhausted, 'Gave up after 5 attempts', { details: { attempts: 5 } }));
    expect(written.status).toBe(503);
    expect(written.headers['retry-after']).toMatch(/^\d+$/);
    expect(written.headers['content-type']).toBe('application/problem+json');
    expect(written.body).toMatchObject({ status: 503, code: 'EVENTSTORE.RETRIES_EXHAUSTED' });
  });

  it('a real version conflict stays 409, with no Retry-After', () => {
    const written = replyTo(new HeadspaceError(ErrorCodes.wrongExpectedVersion, 'Stream moved on'));
    expect(written.status).toBe(409);
    expect(written.headers['retry-after']).toBeUndefined();
  });
});
