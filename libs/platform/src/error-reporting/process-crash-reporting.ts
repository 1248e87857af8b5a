import type { Logger } from 'pino';
import type { ErrorReporter } from './error-reporter';

export interface CrashReportingOptions {
  /** How long a crashing process waits for its report to leave. */
  flushMs?: number;
  exit?: (code: number) => void;
}

/**
 * Reports an uncaught exception or unhandled rejection, then does what Node would have done without
 * these listeners: log it and exit 1 — after the report left or `flushMs` passed. A second crash
 * while the first is being flushed changes nothing. Not installed when reporting is off, so Node's
 * own handling stays as it was.
 */
export function reportProcessCrashes(reporter: ErrorReporter, log: Logger, options: CrashReportingOptions = {}): void {
  if (!reporter.enabled) return;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let crashing = false;
  const crash = (error: unknown, mechanism: 'uncaughtException' | 'unhandledRejection') => {
    if (crashing) return;
    crashing = true;
    reporter.capture(error, { level: mechanism === 'uncaughtException' ? 'fatal' : 'error', handled: false, mechanism });
    log.fatal({ err: error, mechanism }, `${mechanism}: exiting`);
    void reporter.flush(options.flushMs ?? 2_000).finally(() => exit(1));
  };
  process.on('uncaughtException', (error) => crash(error, 'uncaughtException'));
  process.on('unhandledRejection', (reason) => crash(reason, 'unhandledRejection'));
}
