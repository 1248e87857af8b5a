import { opsProjectNameSchema } from '@headspace/contracts';
import { z } from 'zod';

/** Where Headspace's own errors go (README: Configuration); spread into ops-leon's config schema. */
export const internalReportsConfigShape = {
  /** The project of Headspace's own unhandled errors (and of hook failures no project's repository claims), created on first use. */
  HS_OPS_INTERNAL_PROJECT: opsProjectNameSchema.default('headspace'),
  /** The internal project's repository: Headspace's checkout (a relative path is taken from ops-leon's working directory). */
  HS_OPS_INTERNAL_REPOSITORY: z.string().min(1).max(2_048).default('.'),
};
