import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk/error';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/** Reads the Anthropic error `type` (`overloaded_error`, `rate_limit_error`, …) from an APIError. */
function apiErrorType(err: APIError): string | undefined {
  const body = err.error as { error?: { type?: unknown } } | undefined;
  const t = body?.error?.type;
  return typeof t === 'string' ? t : undefined;
}

/**
 * Maps whatever the SDK threw (after its own retries) to a HeadspaceError with a stable LLM.*
 * code. The original error is kept as `cause`; `details` carries status, the API error type and
 * the request id, never headers or keys.
 */
export function mapLlmError(error: unknown): HeadspaceError {
  if (error instanceof HeadspaceError) return error;
  if (error instanceof APIUserAbortError) {
    return new HeadspaceError(ErrorCodes.llmAborted, 'model call was aborted', { cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new HeadspaceError(ErrorCodes.llmTimeout, 'model call timed out', { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new HeadspaceError(ErrorCodes.llmConnectionFailed, `could not reach the model API: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof APIError) {
    const type = apiErrorType(error);
    const status = error.status;
    const details: Record<string, unknown> = { status, type, requestId: error.requestID ?? undefined };
    const make = (code: string) =>
      new HeadspaceError(code, `model API ${status ?? ''} ${type ?? ''}: ${error.message}`.replace(/\s+/g, ' '), {
        cause: error,
        details,
      });
    if (status === 529 || type === 'overloaded_error') return make(ErrorCodes.llmOverloaded);
    if (status === 429 || type === 'rate_limit_error') return make(ErrorCodes.llmRateLimited);
    if (status === 408 || status === 504 || type === 'timeout_error') return make(ErrorCodes.llmTimeout);
    if (status === 413 || type === 'request_too_large') return make(ErrorCodes.llmContextTooLarge);
    if (status === 400 || type === 'invalid_request_error') return make(ErrorCodes.llmBadRequest);
    if (status === 401 || type === 'authentication_error') return make(ErrorCodes.llmAuthenticationFailed);
    if (status === 403 || type === 'permission_error') return make(ErrorCodes.llmPermissionDenied);
    if (status === 404 || type === 'not_found_error') return make(ErrorCodes.llmModelNotFound);
    return make(ErrorCodes.llmUpstreamError);
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return new HeadspaceError(ErrorCodes.llmUpstreamError, `model call failed: ${err.message}`, { cause: err });
}

/** True for codes worth retrying later at a higher level (the SDK already retried these). */
export function isTransientLlmError(error: unknown): boolean {
  const code = error instanceof HeadspaceError ? error.code : undefined;
  return (
    code === ErrorCodes.llmOverloaded ||
    code === ErrorCodes.llmRateLimited ||
    code === ErrorCodes.llmTimeout ||
    code === ErrorCodes.llmConnectionFailed
  );
}
