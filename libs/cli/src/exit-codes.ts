/** Exit codes scripts can rely on (documented in libs/cli/README.md). */
export const ExitCode = {
  ok: 0,
  /** Bad command line: unknown command or option, missing argument, invalid value, no endpoint configured. */
  usage: 1,
  /** The API refused the request (4xx other than 401/403): validation, not found, conflict… */
  apiClient: 2,
  /** The API failed (5xx) or could not be reached. */
  apiServer: 3,
  /** Missing, invalid or insufficient token (401/403). */
  auth: 4,
  /** `headspace run` followed a run that ended failed (stopped at an escalation, no usable output, …). */
  runFailed: 5,
  /** `headspace eval run|compare --ci` found a regression against the baseline run. */
  evalRegression: 6,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error that ends the command with a given exit code and message. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCodeValue,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
