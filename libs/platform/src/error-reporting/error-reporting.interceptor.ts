import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { catchError, throwError, type Observable } from 'rxjs';
import { isUnexpectedError } from './error-report';
import type { ErrorReporter } from './error-reporter';

/** HTTP routes: an unexpected (non-typed, 5xx) error is reported to Leon, then goes on to the app's exception filter unchanged. */
@Injectable()
export class ErrorReportingInterceptor implements NestInterceptor {
  constructor(private readonly reporter: ErrorReporter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (isUnexpectedError(error)) this.reporter.capture(error, { level: 'error', handled: false, mechanism: 'http' });
        return throwError(() => error);
      }),
    );
  }
}
