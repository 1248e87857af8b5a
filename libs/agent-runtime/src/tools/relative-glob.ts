import path from 'node:path';
import { z } from 'zod';

/** Glob patterns must stay relative and inside the search directory. */
export const relativeGlob = z
  .string()
  .min(1)
  .refine((g) => !path.isAbsolute(g) && !g.split('/').includes('..'), 'must be relative and must not contain ".." segments');
