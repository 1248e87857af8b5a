import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config';
import { opsIngestPlugin } from './ops-ingest.routes';

/**
 * Registers the ingest routes as a Fastify child context. At bootstrap, not module init: by then
 * HttpSetup has queued the root hooks (rate limits, authentication), so the child inherits them.
 */
@Injectable()
export class OpsIngestSetup implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    void fastify.register(opsIngestPlugin(this.nc, { maxBytes: this.config.HS_OPS_INGEST_MAX_BYTES, timeoutMs: this.config.HS_REQUEST_TIMEOUT_MS }));
  }
}

/** Leon's exception ingest edge: the plain JSON route and the Sentry envelope/store routes. */
@Module({ providers: [OpsIngestSetup] })
export class OpsIngestModule {}
