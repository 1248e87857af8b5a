import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@headspace/platform';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AsyncApiController } from './asyncapi/asyncapi.controller';
import { AuthGuard } from './auth/auth.guard';
import { SERVICE, type AppConfig } from './config';
import { DashboardModule } from './dashboard/dashboard.module';
import { HttpSetup } from './http/http-setup.service';
import { ProblemDetailsFilter } from './http/problem-details.filter';
import { McpModule } from './mcp/mcp.module';
import { OpenApiController } from './openapi/openapi.controller';
import { OpsIngestModule } from './ops-ingest/ops-ingest.module';
import { RoutesModule } from './routes/routes.module';
import { StreamModule } from './stream/stream.module';
import { TokensModule } from './tokens/tokens.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, migrationsDirs: [join(__dirname, 'migrations')], publishEvents: true }),
        TokensModule,
        RoutesModule,
        StreamModule,
        OpsIngestModule,
        WebhooksModule,
        DashboardModule,
        McpModule,
      ],
      controllers: [OpenApiController, AsyncApiController],
      providers: [
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        { provide: APP_GUARD, useClass: AuthGuard },
        HttpSetup,
      ],
    };
  }
}
