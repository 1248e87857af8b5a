import { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { ErrorCodes, HeadspaceError, httpStatusForCode } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { isTransientLlmError, mapLlmError } from './errors';

const apiError = (status: number, type: string) =>
  APIError.generate(status, { type: 'error', error: { type, message: `${type} happened` } }, undefined, new Headers({ 'request-id': 'req_1' }));

describe('LLM error mapping', () => {
  it.each([
    [529, 'overloaded_error', ErrorCodes.llmOverloaded],
    [429, 'rate_limit_error', ErrorCodes.llmRateLimited],
    [400, 'invalid_request_error', ErrorCodes.llmBadRequest],
    [401, 'authentication_error', ErrorCodes.llmAuthenticationFailed],
    [403, 'permission_error', ErrorCodes.llmPermissionDenied],
    [404, 'not_found_error', ErrorCodes.llmModelNotFound],
    [413, 'request_too_large', ErrorCodes.llmContextTooLarge],
    [500, 'api_error', ErrorCodes.llmUpstreamError],
  ])('maps HTTP %i %s to %s with status, type and request id in details', (status, type, code) => {
    const mapped = mapLlmError(apiError(status, type));
    expect(mapped).toBeInstanceOf(HeadspaceError);
    expect(mapped.code).toBe(code);
    expect(mapped.details).toEqual({ status, type, requestId: 'req_1' });
    expect(mapped.cause).toBeInstanceOf(APIError);
  });

  it('maps timeouts and aborts, and keeps HeadspaceErrors as they are', () => {
    expect(mapLlmError(new APIConnectionTimeoutError()).code).toBe(ErrorCodes.llmTimeout);
    expect(mapLlmError(new APIUserAbortError()).code).toBe(ErrorCodes.llmAborted);
    const own = new HeadspaceError(ErrorCodes.llmUnknownModelAlias, 'x');
    expect(mapLlmError(own)).toBe(own);
    expect(mapLlmError(new Error('boom')).code).toBe(ErrorCodes.llmUpstreamError);
  });

  it('marks overload, rate limit, timeout and connection failures as transient', () => {
    expect(isTransientLlmError(mapLlmError(apiError(529, 'overloaded_error')))).toBe(true);
    expect(isTransientLlmError(mapLlmError(apiError(400, 'invalid_request_error')))).toBe(false);
  });

  it('gives LLM codes sensible HTTP statuses', () => {
    expect(httpStatusForCode(ErrorCodes.llmOverloaded)).toBe(503);
    expect(httpStatusForCode(ErrorCodes.llmRateLimited)).toBe(429);
    expect(httpStatusForCode(ErrorCodes.llmTimeout)).toBe(503);
    expect(httpStatusForCode(ErrorCodes.llmUnknownModelAlias)).toBe(400);
    expect(httpStatusForCode(ErrorCodes.simulatorScenarioInvalid)).toBe(500);
  });
});
