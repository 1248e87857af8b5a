import type { ExceptionDomain } from '@headspace/contracts';

/**
 * Where a triaged group goes: its domain's pool of the shipped roster
 * (apps/team-manager/config/personas.yaml) and the persona Leon names for it.
 * Infrastructure work sits in the `integration` pool, where Mark is.
 */
const ROUTES: Record<ExceptionDomain, { pool: string; persona: string }> = {
  backend: { pool: 'backend', persona: 'con' },
  frontend: { pool: 'frontend', persona: 'al' },
  database: { pool: 'database', persona: 'may' },
  infrastructure: { pool: 'integration', persona: 'mark' },
};

export const poolForDomain = (domain: ExceptionDomain): string => ROUTES[domain].pool;
export const personaForDomain = (domain: ExceptionDomain): string => ROUTES[domain].persona;
