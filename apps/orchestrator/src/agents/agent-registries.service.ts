import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { AgentRegistry, defaultAgentLocations, type AgentDefinition, type AgentLocation } from '@headspace/agent-runtime';
import { APP_CONFIG } from '@headspace/platform';
import { stat } from 'node:fs/promises';
import type { AppConfig } from '../config';
import { EnabledPlugins } from '../plugins/enabled-plugins.service';

/** Registries kept warm at once; the least recently used one is closed (its watchers) beyond this. */
const MAX_REGISTRIES = 32;

interface Entry {
  locations: AgentLocation[];
  registry: Promise<AgentRegistry>;
  /** Agent directories that did not exist when watching began (a directory watcher needs the directory). */
  missing: string[];
  refreshing?: Promise<void>;
}

const exists = (dir: string) => stat(dir).then((s) => s.isDirectory(), () => false);

/**
 * The agent definitions each project sees (seed 003 Requirement 8): one AgentRegistry per project
 * directory — project (`<dir>/.headspace/agents`) > user (`$HS_AGENT_HOME/agents`) > shipped
 * templates, plus the agents of the plugins enabled in the team (`plugin:agent`, ADR 0045) — loaded once, then kept current by the registry's directory watcher (hot reload; a
 * directory created later is picked up at the next lookup), and closed on shutdown. Sessions,
 * `list-agents` and `--agent <name>` all read through here.
 */
@Injectable()
export class AgentRegistries implements OnApplicationShutdown {
  private readonly logger = new Logger(AgentRegistries.name);
  private readonly entries = new Map<string, Entry>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'HS_AGENT_HOME'>,
    @Optional() private readonly plugins?: EnabledPlugins,
  ) {}

  /**
   * The registry of a project directory (absolute, already checked); none: user and built-in agents
   * only. With a team, the agents of its enabled plugins join: the key holds their installed copies,
   * so enabling, disabling or upgrading a plugin opens a registry of its own.
   */
  async forProject(projectDir?: string, team?: string): Promise<AgentRegistry> {
    const plugins = team && this.plugins ? (await this.plugins.partsFor(team)).agentLocations.map(({ plugin, dir }) => ({ name: plugin, dir })) : [];
    const key = [projectDir ?? '', ...plugins.map((p) => p.dir)].join('\n');
    let entry = this.entries.get(key);
    if (entry) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(key);
      this.entries.set(key, entry);
    } else {
      const locations = defaultAgentLocations({ ...(projectDir ? { projectDir } : {}), home: this.config.HS_AGENT_HOME, plugins });
      const created = { locations, missing: [] as string[] } as Entry;
      created.registry = this.open(created, projectDir);
      this.entries.set(key, created);
      created.registry.catch(() => this.entries.delete(key));
      this.evict();
      entry = created;
    }
    const registry = await entry.registry;
    if (entry.missing.length > 0) await (entry.refreshing ??= this.watchCreated(entry, registry).finally(() => (entry.refreshing = undefined)));
    return registry;
  }

  /** `--agent <name>` (asks, runs): the definition a project resolves the name to, by precedence; AGENT_DEFINITION.NOT_FOUND otherwise. */
  async resolve(name: string, projectDir?: string, team?: string): Promise<AgentDefinition> {
    return (await this.forProject(projectDir, team)).get(name);
  }

  /** As resolve, but none when no location defines the name (a caller that falls back to personas). */
  async find(name: string, projectDir?: string, team?: string): Promise<AgentDefinition | undefined> {
    return (await this.forProject(projectDir, team)).find(name);
  }

  async onApplicationShutdown(): Promise<void> {
    const all = [...this.entries.values()].map((e) => e.registry);
    this.entries.clear();
    for (const r of await Promise.allSettled(all)) if (r.status === 'fulfilled') r.value.close();
  }

  private async open(entry: Entry, projectDir?: string): Promise<AgentRegistry> {
    const registry = new AgentRegistry(entry.locations);
    registry.on('error', (error: Error) => this.logger.warn(`agent registry ${projectDir ?? '(user)'}: ${error.message}`));
    await registry.load();
    entry.missing = await missingDirs(entry.locations);
    registry.watch();
    return registry;
  }

  /** A directory that was missing exists now: read it and watch it from here on. */
  private async watchCreated(entry: Entry, registry: AgentRegistry): Promise<void> {
    if (!(await Promise.all(entry.missing.map(exists))).some(Boolean)) return;
    entry.missing = await missingDirs(entry.locations);
    registry.close();
    registry.watch();
    await registry.reload();
  }

  private evict(): void {
    while (this.entries.size > MAX_REGISTRIES) {
      const [oldest, entry] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      void entry.registry.then((r) => r.close(), () => undefined);
    }
  }
}

async function missingDirs(locations: AgentLocation[]): Promise<string[]> {
  const dirs = locations.flatMap((l) => ('dir' in l ? [l.dir] : []));
  const present = await Promise.all(dirs.map(exists));
  return dirs.filter((_, i) => !present[i]);
}
