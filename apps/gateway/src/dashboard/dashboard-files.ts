import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where the built SPA is: apps/gateway/web/dist beside the sources (tests, `vite build`), and
 * dist/apps/gateway/web/dist beside the compiled gateway (`npm run build`, `npm start`).
 */
export const dashboardDir = (): string => join(__dirname, '..', '..', 'web', 'dist');

export const dashboardBuilt = (dir = dashboardDir()): boolean => existsSync(join(dir, 'index.html'));

/** The SPA's client routes (apps/gateway/web/src/app.tsx VIEWS): each answers with index.html. */
export const CLIENT_ROUTES = ['/', '/tasks', '/run', '/approvals', '/budgets', '/exceptions', '/mailboxes'] as const;

/** Vite names every file under assets/ by its content hash: a changed file gets a new name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

/** The SPA's settings from the gateway's config (`{ traceUrlTemplate }`), public like its files. */
export const DASHBOARD_CONFIG_PATH = '/dashboard-config.json';
