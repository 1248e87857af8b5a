import { Catch, type ArgumentsHost } from '@nestjs/common';
import { EventContext, WireErrorFilter } from '@headspace/messaging';
import type { Observable } from 'rxjs';
import { isUnexpectedError } from './error-report';
import type { ErrorReporter } from './error-reporter';

/** The wire error filter, reporting every request that fails with an unexpected (non-typed) error to Leon first. */
@Catch()
export class ReportingWireErrorFilter extends WireErrorFilter {
  constructor(private readonly reporter: ErrorReporter) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    const ctx = host.switchToRpc().getContext<unknown>();
    if (!(ctx instanceof EventContext) && isUnexpectedError(exception)) this.reporter.capture(exception, { level: 'error', handled: false, mechanism: 'rpc' });
    return super.catch(exception, host);
  }
}
