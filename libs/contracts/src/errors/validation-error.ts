import type { z } from 'zod';
import { ErrorCodes } from './error-codes';
import { HeadspaceError } from './headspace-error';

export interface FieldIssue {
  field: string;
  message: string;
}

/** Issues kept in the message and details: a body of 100,000 bad values must not answer megabytes. */
export const MAX_REPORTED_ISSUES = 20;

/** A payload that failed its schema. `field` is the first offending path, e.g. `data.members.0.name`. */
export class ValidationError extends HeadspaceError {
  readonly issues: FieldIssue[];

  constructor(what: string, issues: FieldIssue[]) {
    const first = issues[0] ?? { field: '(root)', message: 'invalid' };
    const reported = issues.slice(0, MAX_REPORTED_ISSUES);
    const more = issues.length > reported.length ? `; and ${issues.length - reported.length} more` : '';
    super(ErrorCodes.validationFailed, `Invalid ${what}: ${reported.map((i) => `${i.field}: ${i.message}`.slice(0, 1_000)).join('; ')}${more}`, {
      field: first.field,
      details: { issues: reported, ...(more ? { issueCount: issues.length } : {}) },
    });
    this.issues = reported;
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
