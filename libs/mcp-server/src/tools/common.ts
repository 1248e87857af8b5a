import { z } from 'zod';

export const team = z.string().min(1).describe('Team name (lowercase letters, digits and dashes), e.g. "alpha"');
export const paging = {
  limit: z.number().int().min(1).max(500).optional().describe('Page size (default 50, at most 500)'),
  cursor: z.string().optional().describe('The `nextCursor` of the previous page, to read the next one'),
};
export const member = (what: string) => z.string().min(1).describe(what);
