import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/tokens.module';
import { apiRoutes } from './api-routes';
import { registryController } from './registry.controller';
import { RouteDispatcher } from './route-dispatcher.service';

@Module({ imports: [TokensModule], controllers: [registryController(apiRoutes)], providers: [RouteDispatcher] })
export class RoutesModule {}
