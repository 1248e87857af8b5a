import { pluginStreamId } from '@headspace/contracts';
import { foldEvents, handleCommand, type EventStore, type RecordedEvent } from '@headspace/event-store';
import { pluginDecider, type PluginCommand, type PluginEvent, type PluginState } from './plugin.decider';

/** Records a plugin command through the one command handler; the team rides along as metadata (SSE scoping). */
export async function recordPlugin(store: EventStore, command: PluginCommand, commandId?: string): Promise<{ state: PluginState; streamVersion: bigint; events: PluginEvent[] }> {
  const outcome = await handleCommand(store, pluginDecider, pluginStreamId(command.team, command.plugin), command, { ...(commandId ? { commandId } : {}) }, { metadata: { team: command.team } });
  return { state: outcome.state, streamVersion: outcome.streamVersion, events: outcome.events };
}

/** The API's view of a plugin from its folded stream (the caller checked it is installed). */
export function pluginView(state: PluginState) {
  const i = state.installed!;
  return {
    team: i.team,
    plugin: i.plugin,
    version: i.version,
    description: i.description ?? null,
    source: i.source,
    commit: i.commit,
    enabled: state.status === 'enabled',
    dir: i.dir,
    parts: i.parts,
    installedAt: i.at,
  };
}

/** The plugin as its stream has it now. */
export async function loadPlugin(store: EventStore, team: string, plugin: string): Promise<PluginState> {
  const recorded = (await store.readStream(pluginStreamId(team, plugin))) as Array<RecordedEvent & PluginEvent>;
  return foldEvents(pluginDecider, recorded.map(({ type, data }) => ({ type, data }) as PluginEvent));
}
