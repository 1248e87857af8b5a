import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { APP_CONFIG } from '@headspace/platform';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isPublicRequest } from '../auth/access-policy';
import { authenticateHook } from '../auth/authenticate.hook';
import type { AuthenticatedRequest } from '../auth/principal';
import type { AppConfig } from '../config';
import { TokenService } from '../tokens/token.service';
import { answerFrameworkErrorsAsProblems } from './framework-errors';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];

/**
 * The Fastify side of the gateway, set up on the instance Nest created: body parsers with the
 * configured size limit (JSON and YAML only; anything else is 415), security headers, CORS,
 * authentication and per-token rate limiting. Fastify attaches root hooks to every route at ready,
 * so these also cover the routes Nest registered before this runs.
 */
@Injectable()
export class HttpSetup implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const bodyLimit = this.config.HS_BODY_LIMIT_BYTES;
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
    }
    fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, fastify.getDefaultJsonParser('error', 'error'));
    answerFrameworkErrorsAsProblems(fastify);
    fastify.addContentTypeParser(YAML_TYPES, { parseAs: 'string', bodyLimit }, (_req, body, done) => done(null, body));

    // Not awaited: loading plugins now would make the routes Nest already declared capture
    // Fastify's default error handler instead of Nest's (set later), and errors raised before the
    // handler (rate limit, body parsing) would skip the problem+json filter.
    void fastify.register(this.plugin());
  }

  private plugin() {
    const { config, tokens } = this;
    const plugin = async (fastify: FastifyInstance) => {
      await fastify.register(helmet);
      const origins = config.HS_CORS_ORIGINS;
      if (origins.length) await fastify.register(cors, { origin: origins.includes('*') ? '*' : origins, exposedHeaders: ['Retry-After'] });
      fastify.addHook('onRequest', authenticateHook(tokens));
      await fastify.register(rateLimit, { global: false });
      fastify.addHook(
        'onRequest',
        fastify.rateLimit({
          max: config.HS_RATE_LIMIT_MAX,
          timeWindow: config.HS_RATE_LIMIT_WINDOW_MS,
          allowList: (req: FastifyRequest) => isPublicRequest(req),
          keyGenerator: (req: FastifyRequest) => {
            const principal = (req as AuthenticatedRequest).principal;
            return principal ? `token:${principal.tokenId}` : `ip:${req.ip}`;
          },
          errorResponseBuilder: (_req, context) =>
            new HeadspaceError(ErrorCodes.gatewayRateLimited, `Rate limit of ${context.max} requests exceeded; retry in ${context.after}`),
        }),
      );
    };
    // Like fastify-plugin: the hooks belong to the root instance, so they cover every route.
    return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  }
}
