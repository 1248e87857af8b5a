import { describe, expect, it } from 'vitest';
import { toToolResult, unreachableResult } from './tool-result';

const textOf = (result: ReturnType<typeof toToolResult>) => (result.content[0] as { text: string }).text;

describe('a REST answer as an MCP tool result', () => {
  it('gives a 2xx body as JSON text, not an error', () => {
    const result = toToolResult({ status: 201, json: { taskId: 't1', streamVersion: '1' } });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(textOf(result))).toEqual({ taskId: 't1', streamVersion: '1' });
  });

  it('gives a 403 problem as an error result naming its status, code and detail', () => {
    const result = toToolResult({
      status: 403,
      json: { status: 403, code: 'AUTH.FORBIDDEN', title: 'Forbidden', detail: 'This operation needs the operator role; the token has viewer' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Headspace refused the call: 403 AUTH.FORBIDDEN: This operation needs the operator role; the token has viewer');
  });

  it('names the offending field and the issues of a validation problem', () => {
    const result = toToolResult({
      status: 400,
      json: { code: 'VALIDATION.FAILED', detail: 'Invalid request', field: 'subject', issues: [{ path: ['subject'], message: 'Required' }] },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('400 VALIDATION.FAILED: Invalid request');
    expect(textOf(result)).toContain('field: subject');
    expect(textOf(result)).toContain('"message":"Required"');
  });

  it('falls back to the HTTP status and title when the body is no problem+json', () => {
    expect(textOf(toToolResult({ status: 502, json: undefined }))).toBe('Headspace refused the call: 502 HTTP.502: no detail given');
    expect(textOf(toToolResult({ status: 404, json: { title: 'Not found' } }))).toBe('Headspace refused the call: 404 HTTP.404: Not found');
  });

  it('reports an unreachable API as an error result', () => {
    const result = unreachableResult(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Headspace could not be reached: connect ECONNREFUSED 127.0.0.1:1');
  });
});
