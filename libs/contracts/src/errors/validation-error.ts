import type { z } from 'zod';
import { ErrorCodes } from './error-codes';
import { HeadspaceError } from './headspace-error';

export interface FieldIssue {
  field: string;
  message: string;
}

/** A payload that failed its schema. `field` is the first offending path, e.g. `data.members.0.name`. */
export class ValidationError extends HeadspaceError {
  readonly issues: FieldIssue[];

  constructor(what: string, issues: FieldIssue[]) {
    const first = issues[0] ?? { field: '(root)', message: 'invalid' };
    super(ErrorCodes.validationFailed, `Invalid ${what}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, {
      field: first.field,
      details: { issues },
    });
    this.issues = issues;
  }
}

export function issuesOf(error: z.ZodError, prefix?: string): FieldIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter(Boolean).join('.') || '(root)';
    return { field, message: issue.message };
  });
}

/** Parse at a boundary: the value or a ValidationError naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(what, issuesOf(result.error, prefix));
  return result.data;
}
