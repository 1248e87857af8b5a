import { Inject, Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { APP_CONFIG } from '@headspace/platform';
import { routeModel as routeModelQuery } from '@headspace/contracts';
import type { AppConfig } from '../../config';
import type { z } from 'zod';
import { PriceCatalog } from '../../prices/price-catalog.service';
import { routeModel } from '../model-router';

/** `route-model`: the routing decision for given signals and pressure, without touching a budget. */
@Controller()
export class RouteModelHandler {
  constructor(
    private readonly catalog: PriceCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @MessagePattern(routeModelQuery)
  async handle(request: z.output<typeof routeModelQuery.request>) {
    const book = await this.catalog.fresh();
    const decision = routeModel({ ...request, fastModels: this.config.HS_FAST_MODE_MODELS, retirementWarningDays: this.config.HS_MODEL_RETIREMENT_WARN_DAYS }, book);
    this.catalog.noteUse(book, decision.model);
    return decision;
  }
}
