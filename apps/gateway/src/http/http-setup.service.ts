import { Inject, Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_CONFIG } from '@headspace/platform';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { authenticateHook } from '../auth/authenticate.hook';
import type { AppConfig } from '../config';
import { TokenService } from '../tokens/token.service';
import { registerBodyParsers } from './body-parsers';
import { answerClientErrorsAsProblems, answerWhileClosingAsProblems } from './connection-problems';
import { answerFrameworkErrorsAsProblems } from './framework-errors';
import { refuseNulCharactersHook } from './nul-characters.hook';
import { rateLimitHooks } from './rate-limits';

/**
 * The Fastify side of the gateway, set up on the instance Nest created: body parsers with the
 * configured size limit (JSON and YAML only; anything else is 415), problem+json answers for what
 * Node and Fastify answer before a route runs, security headers, CORS, rate limiting (per address
 * before authentication, per token after it: rate-limits.ts), authentication and the refusal of
 * NUL characters. Fastify attaches root hooks to every route at
 * ready, so these also cover the routes Nest registered before this runs.
 */
@Injectable()
export class HttpSetup implements OnModuleInit, BeforeApplicationShutdown {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** From SIGTERM on (readiness turns 503 then too), answers ask clients to close their connection. */
  private shuttingDown = false;

  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    registerBodyParsers(fastify, this.config.HS_BODY_LIMIT_BYTES);
    answerFrameworkErrorsAsProblems(fastify);
    answerClientErrorsAsProblems(fastify.server);
    answerWhileClosingAsProblems(fastify, () => this.shuttingDown);

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
      if (origins.length) await fastify.register(cors, { origin: origins.includes('*') ? '*' : origins, exposedHeaders: ['Retry-After', 'Headspace-Position'] });
      await fastify.register(rateLimit, { global: false });
      const limits = rateLimitHooks(fastify, {
        addressMax: config.HS_RATE_LIMIT_ADDRESS_MAX,
        tokenMax: config.HS_RATE_LIMIT_MAX,
        spendMax: config.HS_RATE_LIMIT_SPEND_MAX,
        windowMs: config.HS_RATE_LIMIT_WINDOW_MS,
      });
      // In this order: address limit, token lookup, token (and spend) limits.
      fastify.addHook('onRequest', limits.beforeAuth);
      fastify.addHook('onRequest', authenticateHook(tokens));
      fastify.addHook('onRequest', limits.afterAuth);
      fastify.addHook('preValidation', refuseNulCharactersHook);
    };
    // Like fastify-plugin: the hooks belong to the root instance, so they cover every route.
    return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
  }
}
