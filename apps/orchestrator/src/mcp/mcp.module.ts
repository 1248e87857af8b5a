import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from '../runs/run-source.policy';
import { SessionsModule } from '../sessions/sessions.module';
import { ListMcpToolsHandler } from './list-mcp-tools/list-mcp-tools.handler';

/** The MCP client's API: which servers and tools a project's sessions would get. Sessions connect theirs in DefaultSessionPortsFactory. */
@Module({
  imports: [SessionsModule],
  providers: [
    {
      provide: RUN_SOURCE_POLICY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR }),
    },
  ],
  controllers: [ListMcpToolsHandler],
})
export class McpModule {}
