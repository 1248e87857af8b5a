import { Module } from '@nestjs/common';
import { AgentProjects } from './agent-project';
import { AgentRegistries } from './agent-registries.service';
import { AgentResolver } from './agent-resolver.service';
import { ListAgentsHandler } from './list-agents/list-agents.handler';
import { ValidateAgentHandler } from './validate-agent/validate-agent.handler';

/** Custom agent definitions: the per-project registries (hot reload) and their queries. Sessions delegate to them as subagents. */
@Module({
  controllers: [ListAgentsHandler, ValidateAgentHandler],
  providers: [AgentRegistries, AgentProjects, AgentResolver],
  exports: [AgentRegistries, AgentResolver],
})
export class AgentsModule {}
