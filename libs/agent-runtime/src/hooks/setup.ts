import { registerBuiltinHooks, type BuiltinHookOptions } from './builtins';
import { loadHookSettingsFiles, type SettingsLocations } from './config';
import { HookEngine, type HookEngineOptions } from './engine';

export interface CreateHookEngineOptions extends HookEngineOptions {
  /** Settings files to load (managed, user, project, local). */
  locations?: SettingsLocations;
  /** The Req 27 built-ins (security guard and context backup on by default). */
  builtins?: BuiltinHookOptions;
  /** Hooks of the persona / agent definition (frontmatter `hooks` map); Stop becomes SubagentStop when `asSubagent`. */
  agentHooks?: { source: string; hooks: unknown; asSubagent?: boolean };
}

/**
 * The engine of one agent session: built-ins as managed hooks, then every settings file, then the
 * agent definition's hooks. Load once at session start: later edits to settings files (which an
 * agent's Bash could make) do not change the hooks of a running session.
 */
export async function createHookEngine(options: CreateHookEngineOptions = {}): Promise<HookEngine> {
  const engine = new HookEngine(options);
  registerBuiltinHooks(engine, options.builtins);
  if (options.locations) engine.addSettingsFiles(await loadHookSettingsFiles(options.locations));
  if (options.agentHooks) engine.addHooks('agent', options.agentHooks.hooks, { source: options.agentHooks.source, asSubagent: options.agentHooks.asSubagent });
  return engine;
}
