import { EventEmitter } from 'node:events';
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { checkAntiPatterns, type AntiPatternWarning } from './anti-patterns';
import { AgentDefinitionError, AGENT_SCOPES, parseAgentDefinition, parseInlineAgents, type AgentDefinition, type AgentScope } from './parse';
import { agentToolDefinition } from './runtime-settings';
import { BUILT_IN_AGENT_TEMPLATES } from './templates';

/**
 * Agent registry (seed 003 Requirement 8). Locations, highest precedence first:
 *   managed (`<managedDir>/agents`, Requirement 23 — operator policy, optional)
 *   > project (`<project>/.headspace/agents/*.md`)
 *   > user (`~/.headspace/agents/*.md`)
 *   > plugin (`<plugin>/agents/*.md`, keyed `plugin-name:agent-name`)
 *   > CLI inline (`--agents` JSON, ephemeral)
 *   > built-in templates.
 * A name defined in several places resolves to the highest one; the others are listed as shadowed.
 * Invalid files are reported (with file and field) and skipped; they never hide valid ones.
 */
export type AgentLocation =
  | { scope: 'managed' | 'project' | 'user'; dir: string }
  | { scope: 'plugin'; dir: string; plugin: string }
  | { scope: 'cli'; agents: string | unknown }
  | { scope: 'built-in' };

export function defaultAgentLocations(opts: {
  projectDir?: string;
  home?: string;
  managedDir?: string;
  plugins?: Array<{ name: string; dir: string }>;
  cliAgents?: string;
  builtIns?: boolean;
}): AgentLocation[] {
  const out: AgentLocation[] = [];
  if (opts.managedDir) out.push({ scope: 'managed', dir: join(opts.managedDir, 'agents') });
  if (opts.projectDir) out.push({ scope: 'project', dir: join(opts.projectDir, '.headspace', 'agents') });
  out.push({ scope: 'user', dir: join(opts.home ?? join(homedir(), '.headspace'), 'agents') });
  for (const p of opts.plugins ?? []) out.push({ scope: 'plugin', dir: join(p.dir, 'agents'), plugin: p.name });
  if (opts.cliAgents) out.push({ scope: 'cli', agents: opts.cliAgents });
  if (opts.builtIns ?? true) out.push({ scope: 'built-in' });
  return out;
}

export interface AgentRegistrySnapshot {
  definitions: AgentDefinition[];
  errors: HeadspaceError[];
  warnings: AntiPatternWarning[];
  shadowed: Array<{ key: string; source: string; by: string }>;
}

const rank = (s: AgentScope) => AGENT_SCOPES.indexOf(s);

export class AgentRegistry extends EventEmitter {
  private snapshot: AgentRegistrySnapshot = { definitions: [], errors: [], warnings: [], shadowed: [] };
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reloading: Promise<AgentRegistrySnapshot> | undefined;
  private again = false;

  constructor(private readonly locations: AgentLocation[], private readonly opts: { debounceMs?: number } = {}) {
    super();
  }

  private async readLocation(loc: AgentLocation, errors: HeadspaceError[]): Promise<AgentDefinition[]> {
    if (loc.scope === 'built-in') {
      return Object.entries(BUILT_IN_AGENT_TEMPLATES).map(([name, text]) => parseAgentDefinition(text, { source: `built-in:${name}`, scope: 'built-in' }));
    }
    if (loc.scope === 'cli') {
      try {
        return parseInlineAgents(loc.agents);
      } catch (err) {
        errors.push(err instanceof HeadspaceError ? err : new AgentDefinitionError('cli', '(agents)', `--agents JSON does not parse: ${(err as Error).message}`));
        return [];
      }
    }
    let names: string[];
    try {
      names = (await readdir(loc.dir)).filter((n) => n.endsWith('.md')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
      throw err;
    }
    const out: AgentDefinition[] = [];
    for (const n of names) {
      const file = join(loc.dir, n);
      try {
        const text = await readFile(file, 'utf8');
        out.push(parseAgentDefinition(text, { source: file, scope: loc.scope, plugin: loc.scope === 'plugin' ? loc.plugin : undefined }));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed while we listed
        errors.push(err instanceof HeadspaceError ? err : new AgentDefinitionError(file, '(file)', (err as Error).message));
      }
    }
    return out;
  }

  /** (Re)load every location. Emits `change` with the new snapshot. */
  async load(): Promise<AgentRegistrySnapshot> {
    const errors: HeadspaceError[] = [];
    const all: AgentDefinition[] = [];
    for (const loc of this.locations) all.push(...(await this.readLocation(loc, errors)));
    const byKey = new Map<string, AgentDefinition>();
    const shadowed: AgentRegistrySnapshot['shadowed'] = [];
    for (const def of all.sort((a, b) => rank(a.scope) - rank(b.scope))) {
      const winner = byKey.get(def.key);
      if (winner) shadowed.push({ key: def.key, source: def.source, by: winner.source });
      else byKey.set(def.key, def);
    }
    const definitions = [...byKey.values()];
    this.snapshot = { definitions, errors, warnings: checkAntiPatterns(definitions), shadowed };
    this.emit('change', this.snapshot);
    return this.snapshot;
  }

  current(): AgentRegistrySnapshot {
    return this.snapshot;
  }

  list(): AgentDefinition[] {
    return this.snapshot.definitions;
  }

  find(key: string): AgentDefinition | undefined {
    return this.snapshot.definitions.find((d) => d.key === key);
  }

  get(key: string): AgentDefinition {
    const def = this.find(key);
    if (!def) throw new HeadspaceError(ErrorCodes.agentDefinitionNotFound, `No agent definition named "${key}"`, { field: 'agent' });
    return def;
  }

  toolDefinitions(): Array<{ name: string; description: string }> {
    return this.snapshot.definitions.map(agentToolDefinition);
  }

  /** Reload now, coalescing overlapping requests (one more run after the current one). */
  reload(): Promise<AgentRegistrySnapshot> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        let snap = await this.load();
        while (this.again) {
          this.again = false;
          snap = await this.load();
        }
        return snap;
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  /**
   * Hot reload (Requirement 8.9): watch every directory location; a burst of file events within
   * `debounceMs` (default 100) triggers one reload. Directories that do not exist yet are skipped.
   */
  watch(): void {
    const schedule = () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.reload().catch((err) => this.emit('error', err));
      }, this.opts.debounceMs ?? 100);
    };
    for (const loc of this.locations) {
      if (!('dir' in loc)) continue;
      try {
        const w = watch(loc.dir, { persistent: false }, (_event, name) => {
          if (!name || String(name).endsWith('.md')) schedule();
        });
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}
