import { exceptionReportSchema } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { reportFromPlainBody } from './plain-report';

describe('plain exception body', () => {
  it('becomes a report with a made event id, source http, ISO timestamp from Unix seconds, redacted headers', () => {
    const report = reportFromPlainBody({
      type: 'KeyError',
      message: "'user'",
      stack: 'Traceback (most recent call last):\n  File "app.py", line 3, in view\nKeyError: \'user\'',
      level: 'error',
      timestamp: 1_700_000_000,
      tags: { service: 'web' },
      request: { method: 'GET', url: '/x?api_key=abc', headers: { 'X-Api-Key': 'abc', Accept: '*/*' } },
    });
    expect(exceptionReportSchema.parse(report)).toMatchObject({
      type: 'KeyError',
      source: 'http',
      timestamp: '2023-11-14T22:13:20.000Z',
      request: { method: 'GET', url: '/x?api_key=[redacted]', headers: { 'X-Api-Key': '[redacted]', Accept: '*/*' } },
    });
    expect(report.eventId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keeps a client event id (UUID form normalised) so a retry counts once', () => {
    expect(reportFromPlainBody({ type: 'E', message: '', eventId: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' }).eventId).toBe('aaaaaaaabbbb4ccc8dddeeeeeeeeeeee');
  });

  it.each([
    [{ message: 'no type' }, 'type'],
    [{ type: 'E', message: 'm', stacktrace: 'typo' }, '(root)'],
    [{ type: 'E', message: 'm', level: 'loud' }, 'level'],
    [{ type: 'E', message: 'm', frames: [{ lineno: 'ten' }] }, 'frames.0.lineno'],
    [{ type: 'E', message: 'm', timestamp: 'yesterday' }, 'timestamp'],
    [[1, 2], '(root)'],
  ])('refuses %j naming %s', (body, field) => {
    expect(() => reportFromPlainBody(body)).toThrow(expect.objectContaining({ code: 'CONTRACTS.VALIDATION_FAILED', field }));
  });
});
