import { exceptionReportSchema, parseOrThrow, type ExceptionReportInput } from '@headspace/contracts';
import { z } from 'zod';
import { eventIdOf, isoTimestamp, safeHeaders, safeUrl } from './report-fields';

/**
 * The body of `POST /api/v1/ops/projects/:project/exceptions`: an ExceptionReport as a client
 * writes it by hand. Unknown fields are refused (a typo like `stacktrace` must not silently lose
 * the stack); `eventId` is optional (made here), `timestamp` may also be Unix seconds.
 */
export const plainExceptionSchema = exceptionReportSchema
  .omit({ source: true, eventId: true, timestamp: true })
  .extend({
    eventId: z.string().regex(/^[0-9a-fA-F-]{32,36}$/, 'must be 32 hex characters (or a UUID)').optional(),
    timestamp: z.union([z.iso.datetime({ offset: true }), z.number().positive()]).optional(),
  })
  .strict();

export type PlainException = z.input<typeof plainExceptionSchema>;

/** Parsed (400 naming the field otherwise) and made into the report ops-leon takes. */
export function reportFromPlainBody(body: unknown): ExceptionReportInput {
  const parsed = parseOrThrow(plainExceptionSchema, body, 'exception report');
  const { eventId, timestamp, request, ...rest } = parsed;
  return {
    ...rest,
    eventId: eventIdOf(eventId),
    ...(timestamp !== undefined ? { timestamp: isoTimestamp(timestamp) } : {}),
    // Secrets a client forgot to strip stay out of the log, as for Sentry events.
    ...(request ? { request: { method: request.method, url: safeUrl(request.url), headers: safeHeaders(request.headers) } } : {}),
    source: 'http',
  };
}
