import { ErrorCodes, HeadspaceError, type EventData, type pluginDisabled, type pluginEnabled, type pluginInstalled, type pluginRemoved } from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Installed = EventData<typeof pluginInstalled>;
type Toggled = EventData<typeof pluginEnabled>;

export type PluginEvent =
  | { type: 'plugin.installed'; data: Installed }
  | { type: 'plugin.enabled'; data: Toggled }
  | { type: 'plugin.disabled'; data: EventData<typeof pluginDisabled> }
  | { type: 'plugin.removed'; data: EventData<typeof pluginRemoved> };

type Ref = { team: string; plugin: string; now: string };

export type PluginCommand =
  | ({ type: 'install-plugin'; now: string } & Omit<Installed, 'at'>)
  | ({ type: 'enable-plugin' } & Ref)
  | ({ type: 'disable-plugin' } & Ref)
  | ({ type: 'remove-plugin' } & Ref);

export interface PluginState {
  status: 'none' | 'enabled' | 'disabled' | 'removed';
  installed?: Installed;
}

const requireInstalled = (state: PluginState, plugin: string): Installed => {
  if (!state.installed || state.status === 'none' || state.status === 'removed') {
    throw new HeadspaceError(ErrorCodes.pluginNotFound, `No plugin "${plugin}" is installed`, { field: 'plugin' });
  }
  return state.installed;
};

type Decide<T extends PluginCommand['type']> = (command: Extract<PluginCommand, { type: T }>, state: PluginState) => PluginEvent[];

/**
 * An install records the plugin with its version, commit and parts, enabled (as Claude Code does).
 * The same content installed again changes nothing; other content (a new version or commit) is an
 * upgrade that keeps the plugin disabled if it was.
 */
const install: Decide<'install-plugin'> = ({ type: _t, now, ...data }, state) => {
  const present = state.status === 'enabled' || state.status === 'disabled';
  if (present && state.installed?.contentHash === data.contentHash) return [];
  const installed: PluginEvent = { type: 'plugin.installed', data: { ...data, at: now } };
  return state.status === 'disabled' ? [installed, { type: 'plugin.disabled', data: { team: data.team, plugin: data.plugin, at: now } }] : [installed];
};

const enable: Decide<'enable-plugin'> = ({ team, plugin, now }, state) => {
  requireInstalled(state, plugin);
  return state.status === 'enabled' ? [] : [{ type: 'plugin.enabled', data: { team, plugin, at: now } }];
};

const disable: Decide<'disable-plugin'> = ({ team, plugin, now }, state) => {
  requireInstalled(state, plugin);
  return state.status === 'disabled' ? [] : [{ type: 'plugin.disabled', data: { team, plugin, at: now } }];
};

const remove: Decide<'remove-plugin'> = ({ team, plugin, now }, state) => {
  requireInstalled(state, plugin);
  return [{ type: 'plugin.removed', data: { team, plugin, at: now } }];
};

export const pluginDecider: Decider<PluginCommand, PluginState, PluginEvent> = {
  initialState: () => ({ status: 'none' }),
  decide: decideByType<PluginCommand, PluginState, PluginEvent>({
    'install-plugin': install,
    'enable-plugin': enable,
    'disable-plugin': disable,
    'remove-plugin': remove,
  }),
  evolve: evolveByType<PluginState, PluginEvent>({
    'plugin.installed': (_state, { data }) => ({ status: 'enabled', installed: data }),
    'plugin.enabled': (state) => ({ ...state, status: 'enabled' }),
    'plugin.disabled': (state) => ({ ...state, status: 'disabled' }),
    'plugin.removed': (state) => ({ ...state, status: 'removed' }),
  }),
};
