export interface ConfigProblem {
  variable: string;
  problem: string;
}

/** Thrown by loadConfig; the message names every bad or missing variable (never its value). */
export class ConfigError extends Error {
  readonly code = 'CONFIG.INVALID';

  constructor(
    readonly service: string | undefined,
    readonly problems: ConfigProblem[],
  ) {
    super(
      `Invalid configuration${service ? ` for ${service}` : ''}: ` +
        problems.map((p) => `${p.variable} ${p.problem}`).join('; '),
    );
    this.name = 'ConfigError';
  }
}
