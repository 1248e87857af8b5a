import { Module } from '@nestjs/common';
import { GetPricesHandler } from './get-prices/get-prices.handler';
import { PriceCatalog } from './price-catalog.service';
import { UpdatePricesHandler } from './update-prices/update-prices.handler';

/**
 * Prices as data: the published table, its update command and query. Not global on purpose: feature
 * modules import it, so it initialises (and publishes the file's table) after the platform migrated
 * and before any handler serves.
 */
@Module({ providers: [PriceCatalog], controllers: [UpdatePricesHandler, GetPricesHandler], exports: [PriceCatalog] })
export class PricesModule {}
