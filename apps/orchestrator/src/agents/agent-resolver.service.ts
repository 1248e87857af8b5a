import { Injectable } from '@nestjs/common';
import type { AgentSnapshot } from '@headspace/contracts';
import { AgentProjects } from './agent-project';
import { AgentRegistries } from './agent-registries.service';
import { agentSnapshotOf } from './agent-snapshot';

/**
 * `--agent <name>` on asks and runs: the custom agent definition a project resolves the name to —
 * project (`<source>/.headspace/agents`) > user (`$HS_AGENT_HOME/agents`) > shipped templates, as
 * ADR 30 ranks them — as the snapshot the ask or run records, and the names that exist (for the
 * 400 that lists them). A file that does not validate defines nothing.
 */
@Injectable()
export class AgentResolver {
  constructor(
    private readonly registries: AgentRegistries,
    private readonly projects: AgentProjects,
  ) {}

  /** `source`: a run source or ask workspace, already checked by the source policy; `team`: its enabled plugins' agents join. */
  async lookup(name: string, source: string, team?: string): Promise<{ agent?: AgentSnapshot; known: string[] }> {
    const registry = await this.registries.forProject(await this.projects.dirOf(source), team);
    const def = registry.find(name);
    return { ...(def ? { agent: agentSnapshotOf(def) } : {}), known: registry.list().map((d) => d.key).sort() };
  }
}
