import { Catch, Logger, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { currentTraceId } from '@headspace/telemetry';
import { throwError, type Observable } from 'rxjs';
import { describeError } from '../consumer/dead-letter-writer';
import { toWireError } from '../request-reply/reply-envelope';
import type { RequestContext } from '../request-reply/request-context';
import { EventContext } from './event-context';

/**
 * The one place a request handler's failure becomes its typed wire error: HeadspaceErrors keep their
 * code, a lost database is DATABASE.UNAVAILABLE, anything else INTERNAL.UNEXPECTED (logged here,
 * never sent). Event handlers' errors pass through untouched: the consumer decides from the error
 * itself whether to hold the message (database away), retry it or dead-letter it.
 */
@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('WireErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    const ctx = host.switchToRpc().getContext<RequestContext | EventContext>();
    if (ctx instanceof EventContext) return throwError(() => exception);
    const wire = toWireError(exception, ctx.subject, currentTraceId());
    if (wire.code === ErrorCodes.internal) this.logger.error(`${ctx.subject}: ${describeError(exception)}`);
    return throwError(() => HeadspaceError.fromWire(wire));
  }
}
