import type { z } from 'zod';
import { ConfigError, type ConfigProblem } from './config-error';

/**
 * Parses environment variables with a zod schema. Empty strings count as unset (so defaults
 * apply). Throws ConfigError listing every problem; values are never echoed, they may be secrets.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  service?: string,
): z.output<S> {
  const input = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(input);
  if (result.success) return result.data;

  const problems = new Map<string, ConfigProblem>();
  for (const issue of result.error.issues) {
    const variable = issue.path.map(String).join('.') || '(root)';
    if (problems.has(variable)) continue;
    const problem = input[variable] === undefined ? 'is required' : issue.message;
    problems.set(variable, { variable, problem });
  }
  throw new ConfigError(service, [...problems.values()]);
}
