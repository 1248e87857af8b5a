import { Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { CLIENT_ROUTES, dashboardBuilt, dashboardDir, DASHBOARD_CONFIG_PATH, IMMUTABLE, REVALIDATE } from './dashboard-files';

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Headspace</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (or <code>npx vite build --config apps/gateway/web/vite.config.mts</code>) and restart the gateway.
The API is at <a href="/api/docs">/api/docs</a>.</p></main></body></html>`;

/**
 * Serves the dashboard SPA at `/`: hashed assets cached for a year, index.html revalidated on every
 * load (so a deploy is picked up at once). Only the SPA's own routes fall back to index.html, so
 * /api/*, /health* and /metrics keep their 404s. The files are public; the data behind them is not.
 */
@Injectable()
export class DashboardStatic implements OnModuleInit {
  private readonly logger = new Logger('Dashboard');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Public like the SPA's files: what the SPA needs before sign-in, and nothing secret.
    const publicConfig = { traceUrlTemplate: this.config.HS_TRACE_URL_TEMPLATE ?? null };
    fastify.get(DASHBOARD_CONFIG_PATH, (_req, reply) => reply.header('cache-control', REVALIDATE).send(publicConfig));
    const root = dashboardDir();
    if (!dashboardBuilt(root)) {
      this.logger.warn(`The dashboard is not built (${root} has no index.html): / explains how to build it`);
      fastify.get('/', (_req, reply) => reply.type('text/html; charset=utf-8').header('cache-control', REVALIDATE).send(NOT_BUILT_PAGE));
      return;
    }
    const plugin = async (instance: FastifyInstance) => {
      await instance.register(fastifyStatic, {
        root,
        prefix: '/',
        wildcard: false,
        index: false,
        cacheControl: false,
        setHeaders: (reply, path) => void reply.header('cache-control', path.includes('/assets/') ? IMMUTABLE : REVALIDATE),
      });
      const page = (_req: unknown, reply: FastifyReply) => reply.header('cache-control', REVALIDATE).sendFile('index.html');
      for (const route of CLIENT_ROUTES) instance.get(route, page);
    };
    // Like fastify-plugin: on the root instance, under the gateway's security headers and limits.
    void fastify.register(Object.assign(plugin, { [Symbol.for('skip-override')]: true }));
  }
}

@Module({ providers: [DashboardStatic] })
export class DashboardModule {}
