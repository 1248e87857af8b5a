import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, httpStatusForCode } from '@headspace/contracts';
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
    const problem = toProblem(exception, request.url);
    if (problem.status >= 500) this.logger.error({ err: exception, code: problem.code }, problem.detail);
    if (problem.status === 503) void reply.header('Retry-After', '2');
    void reply.status(problem.status).header('Content-Type', 'application/problem+json').send(problem);
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  field?: string;
  issues?: unknown;
}

export function toProblem(exception: unknown, instance: string): Problem {
  if (exception instanceof HeadspaceError) {
    const status = httpStatusForCode(exception.code);
    return {
      type: `https://headspace.dev/problems/${exception.code.toLowerCase().replace(/[._]/g, '-')}`,
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
    const code = status === 404 ? 'HTTP.NOT_FOUND' : status === 413 ? 'HTTP.PAYLOAD_TOO_LARGE' : status === 415 ? 'HTTP.UNSUPPORTED_MEDIA_TYPE' : `HTTP.${status}`;
    return { type: 'about:blank', title: exception.message, status, detail: exception.message, instance, code };
  }
  const status = (exception as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own errors (bad JSON, body too large, wrong content type) are the client's fault.
    return { type: 'about:blank', title: 'Bad request', status, detail: (exception as Error).message, instance, code: `HTTP.${status}` };
  }
  return { type: 'about:blank', title: 'Internal error', status: 500, detail: 'An unexpected error occurred', instance, code: ErrorCodes.internal };
}

function titleOf(code: string): string {
  const reason = code.split('.').pop() ?? code;
  return reason.charAt(0) + reason.slice(1).toLowerCase().replace(/_/g, ' ');
}
