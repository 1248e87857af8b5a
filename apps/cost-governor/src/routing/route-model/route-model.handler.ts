import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { routeModel as routeModelQuery } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { AppConfig } from '../../config';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PriceCatalog } from '../../prices/price-catalog.service';
import { ServedHandler } from '@headspace/platform';
import { routeModel } from '../model-router';

/** `route-model`: the routing decision for given signals and pressure, without touching a budget. */
@Injectable()
export class RouteModelHandler extends ServedHandler<typeof routeModelQuery> {
  constructor(
    private readonly catalog: PriceCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(routeModelQuery, nc);
  }

  async handle(request: z.output<typeof routeModelQuery.request>) {
    return routeModel({ ...request, fastModels: this.config.HS_FAST_MODE_MODELS }, await this.catalog.fresh());
  }
}
