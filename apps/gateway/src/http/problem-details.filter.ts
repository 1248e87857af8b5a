import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, httpStatusForCode } from '@headspace/contracts';
import { asDatabaseUnavailable } from '@headspace/event-store';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Every error leaves the gateway as application/problem+json (RFC 9457) with the stable error code,
 * and the offending field for validation errors. Never a stack trace.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problem');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    // The path only: a query string may carry an access token.
    const problem = toProblem(exception, request.url.split('?', 1)[0]);
    if (problem.status === 415) problem.detail = unsupportedMediaType(request.headers['content-type']);
    // 503 = a service behind NATS is down or slow: expected and retried by clients, no stack needed.
    if (problem.status === 503) this.logger.warn({ code: problem.code }, problem.detail);
    else if (problem.status >= 500) this.logger.error({ err: exception, code: problem.code }, problem.detail);
    if (problem.status === 503) void reply.header('Retry-After', '2');
    if (problem.status === 401) void reply.header('WWW-Authenticate', 'Bearer realm="headspace"');
    if (problem.status === 429 && !reply.hasHeader('Retry-After')) void reply.header('Retry-After', '1');
    void reply.status(problem.status).header('Content-Type', 'application/problem+json').send(problem);
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Absent when the request could not be read far enough to know its path. */
  instance?: string;
  code: string;
  field?: string;
  issues?: unknown;
}

export function toProblem(exception: unknown, instance?: string): Problem {
  if (exception instanceof HeadspaceError) {
    const status = httpStatusForCode(exception.code);
    return {
      type: problemType(exception.code),
      title: titleOf(exception.code),
      status,
      detail: status >= 500 && exception.code === ErrorCodes.internal ? 'An unexpected error occurred' : exception.message,
      instance,
      code: exception.code,
      ...(exception.field ? { field: exception.field } : {}),
      ...(exception.details?.issues ? { issues: exception.details.issues } : {}),
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = httpExceptionCode(status, exception.cause);
    return { type: problemType(code), title: titleOf(code), status, detail: exception.message, instance, code };
  }
  const status = (exception as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own errors (bad JSON, body too large, wrong content type) are the client's fault.
    const code = httpExceptionCode(status, exception);
    return { type: problemType(code), title: titleOf(code), status, detail: (exception as Error).message, instance, code };
  }
  // The gateway's own tables (tokens, idempotency) while PostgreSQL is down or restarting: retryable.
  const unavailable = asDatabaseUnavailable(exception);
  if (unavailable) return toProblem(unavailable, instance);
  return { type: 'about:blank', title: 'Internal error', status: 500, detail: 'An unexpected error occurred', instance, code: ErrorCodes.internal };
}

const unsupportedMediaType = (type: string | undefined) =>
  `Content-Type ${JSON.stringify((type ?? '(none)').slice(0, 100))} is not accepted here: send application/json (or application/yaml for a manifest)`;

const problemType = (code: string) => `https://headspace.dev/problems/${code.toLowerCase().replace(/[._]/g, '-')}`;

/** Nest wraps Fastify's own client errors (bad JSON, body too large, media type) in HttpExceptions. */
function httpExceptionCode(status: number, cause: unknown): string {
  const fastifyCode = (cause as { code?: unknown } | undefined)?.code;
  if (status === 400) {
    return fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY' || cause instanceof SyntaxError ? ErrorCodes.gatewayBadJson : ErrorCodes.gatewayBadRequest;
  }
  const byStatus: Record<number, string> = {
    401: ErrorCodes.authUnauthenticated,
    403: ErrorCodes.authForbidden,
    404: ErrorCodes.gatewayRouteNotFound,
    413: ErrorCodes.gatewayPayloadTooLarge,
    414: ErrorCodes.gatewayUriTooLong,
    415: ErrorCodes.gatewayUnsupportedMediaType,
    429: ErrorCodes.gatewayRateLimited,
  };
  return byStatus[status] ?? `HTTP.${status}`;
}

function titleOf(code: string): string {
  const reason = code.split('.').pop() ?? code;
  return reason.charAt(0) + reason.slice(1).toLowerCase().replace(/_/g, ' ');
}
