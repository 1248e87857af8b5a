import { isSecretName, redactedMark, type ExceptionReport } from '@headspace/contracts';

/** Request headers that carry credentials whatever the generic secret-name list says. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-sentry-auth|x-headspace-ingest-key|x-api-key|x-auth-token|x-csrf-token)$/i;

/**
 * The report as it may be recorded: credential headers redacted (secrets never enter events), and
 * the frames Leon parsed from raw stack text kept when the client sent none, so the group view can
 * show them.
 */
export function recordableReport(report: ExceptionReport, parsedFrames: ExceptionReport['frames']): ExceptionReport {
  const headers = report.request?.headers;
  return {
    ...report,
    ...(report.frames.length === 0 && parsedFrames.length > 0 ? { frames: parsedFrames } : {}),
    ...(headers
      ? {
          request: {
            ...report.request,
            headers: Object.fromEntries(
              Object.entries(headers).map(([name, value]) => [name, CREDENTIAL_HEADER.test(name) || isSecretName(name.replaceAll('-', '_')) ? redactedMark('header') : value]),
            ),
          },
        }
      : {}),
  };
}
