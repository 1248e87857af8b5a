import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@headspace/platform';
import { APP_FILTER } from '@nestjs/core';
import { SERVICE, type AppConfig } from './config';
import { ProblemDetailsFilter } from './http/problem-details.filter';
import { TeamsModule } from './teams/teams.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot({ service: SERVICE, config }), TeamsModule],
      providers: [{ provide: APP_FILTER, useClass: ProblemDetailsFilter }],
    };
  }
}
