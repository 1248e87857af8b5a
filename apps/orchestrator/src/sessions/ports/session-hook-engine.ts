import { createHookEngine, type AgentEvaluator, type HookSettingsFile, type HookEngine, type HookOutcome, type PromptEvaluator, type Sandbox } from '@headspace/agent-runtime';
import type { EventData, sessionStarted } from '@headspace/contracts';
import type { AppConfig } from '../../config';
import type { HookFailureReporter } from '../hook-failures/hook-failure-reporter';
import { tracedHooks } from './traced-hooks';

/** What a built-in session adds to its engine: the project's settings files, the model-evaluated hooks, where async outcomes go. */
export interface SessionHookExtras {
  /** The workspace: its `.claude/settings.json` and `.claude/settings.local.json` are loaded (precedence: local > project > user). */
  projectDir?: string;
  promptEvaluator?: PromptEvaluator;
  agentEvaluator?: AgentEvaluator;
  /** Besides the failure report: an async hook's outcome for the session's next turn. */
  onAsyncOutcome?: (outcome: HookOutcome) => void;
  /** The hooks of the plugins enabled in the session's team (plugin scope, ADR 0045): additive to the settings files. */
  pluginHooks?: readonly HookSettingsFile[];
}

/**
 * A session's hook engine, the same for every runtime (built-in tools and the Claude Code hook
 * endpoint): the operator's settings locations, the built-ins, command hooks in the session's
 * sandbox, failures reported to Leon, every firing traced.
 */
export function createSessionHookEngine(
  config: Pick<AppConfig, 'HS_AGENT_HOME' | 'HS_MANAGED_SETTINGS' | 'HS_FORMAT_COMMAND'>,
  started: EventData<typeof sessionStarted>,
  hookFailures: HookFailureReporter,
  sandbox: Sandbox | undefined,
  extras: SessionHookExtras = {},
): Promise<HookEngine> {
  return createHookEngine({
    locations: { homeDir: config.HS_AGENT_HOME, ...(config.HS_MANAGED_SETTINGS ? { managedPath: config.HS_MANAGED_SETTINGS } : {}), ...(extras.projectDir ? { projectDir: extras.projectDir } : {}) },
    builtins: config.HS_FORMAT_COMMAND ? { formatOnWrite: { command: config.HS_FORMAT_COMMAND } } : {},
    ...(sandbox ? { sandbox } : {}),
    ...(extras.promptEvaluator ? { promptEvaluator: extras.promptEvaluator } : {}),
    ...(extras.agentEvaluator ? { agentEvaluator: extras.agentEvaluator } : {}),
    onAsyncOutcome: (outcome) => {
      hookFailures.outcome(outcome, started);
      extras.onAsyncOutcome?.(outcome);
    },
  }).then((engine) => {
    engine.addSettingsFiles(extras.pluginHooks ?? []);
    return tracedHooks(hookFailures.watch(engine, started));
  });
}
