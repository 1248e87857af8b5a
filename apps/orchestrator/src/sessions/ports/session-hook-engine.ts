import { createHookEngine, type HookEngine, type Sandbox } from '@headspace/agent-runtime';
import type { EventData, sessionStarted } from '@headspace/contracts';
import type { AppConfig } from '../../config';
import type { HookFailureReporter } from '../hook-failures/hook-failure-reporter';
import { tracedHooks } from './traced-hooks';

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
): Promise<HookEngine> {
  return createHookEngine({
    locations: { homeDir: config.HS_AGENT_HOME, ...(config.HS_MANAGED_SETTINGS ? { managedPath: config.HS_MANAGED_SETTINGS } : {}) },
    builtins: config.HS_FORMAT_COMMAND ? { formatOnWrite: { command: config.HS_FORMAT_COMMAND } } : {},
    ...(sandbox ? { sandbox } : {}),
    onAsyncOutcome: (outcome) => hookFailures.outcome(outcome, started),
  }).then((engine) => tracedHooks(hookFailures.watch(engine, started)));
}
