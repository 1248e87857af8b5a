import { Module } from '@nestjs/common';
import { PricesModule } from '../prices/prices.module';
import { RouteModelHandler } from './route-model/route-model.handler';

/** Model routing and effort selection as a query (may-spend applies the same rules with budget pressure). */
@Module({ imports: [PricesModule], controllers: [RouteModelHandler] })
export class RoutingModule {}
