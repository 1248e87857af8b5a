import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listAgents } from '@headspace/contracts';
import type { z } from 'zod';
import { AgentProjects } from '../agent-project';
import { AgentRegistries } from '../agent-registries.service';
import { listingOf } from '../agent-listing';

/** `hs.qry.orchestrator.list-agents`: what a session in the project would see, with invalid files and anti-pattern warnings. */
@Controller()
export class ListAgentsHandler {
  constructor(
    private readonly registries: AgentRegistries,
    private readonly projects: AgentProjects,
  ) {}

  @MessagePattern(listAgents)
  async handle({ team, source }: z.output<typeof listAgents.request>) {
    const dir = source ? await this.projects.dirOf(source) : undefined;
    return listingOf((await this.registries.forProject(dir, team)).current());
  }
}
