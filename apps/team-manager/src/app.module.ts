import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@headspace/platform';
import { SERVICE, type AppConfig } from './config';
import { TeamsModule } from './teams/teams.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true }), TeamsModule],
    };
  }
}
