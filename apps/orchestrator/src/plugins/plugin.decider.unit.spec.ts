import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { pluginDecider, type PluginCommand, type PluginEvent } from './plugin.decider';

const now = '2026-11-27T06:00:00.000Z';
const team = 'red';
const plugin = 'security-toolkit';
const parts = { agents: ['vuln-scanner'], skills: ['owasp-checklist'], commands: ['security-scan'], hooks: ['PreToolUse'], mcpServers: ['dependency-checker'] };
const installData = { team, plugin, version: '1.0.0', source: '/src/security-toolkit', commit: 'a'.repeat(40), contentHash: '1'.repeat(64), dir: '/home/plugins/red/security-toolkit/1111', parts };
const installed: PluginEvent = { type: 'plugin.installed', data: { ...installData, at: now } };
const enabled: PluginEvent = { type: 'plugin.enabled', data: { team, plugin, at: now } };
const disabled: PluginEvent = { type: 'plugin.disabled', data: { team, plugin, at: now } };
const removed: PluginEvent = { type: 'plugin.removed', data: { team, plugin, at: now } };
const ref = { team, plugin, now };

const spec = DeciderSpec.for(pluginDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.pluginNotFound && e.field === 'plugin';

describe('plugin decider', () => {
  describe('install-plugin', () => {
    const command: PluginCommand = { type: 'install-plugin', ...installData, now };
    const upgrade = { ...installData, version: '1.1.0', commit: 'b'.repeat(40), contentHash: '2'.repeat(64) };
    it('records the plugin with its version, commit and parts', () => spec.given([]).when(command).then([installed]));
    it('records nothing when the same content is installed again', () => spec.given([installed]).when(command).then([]));
    it('records an upgrade to other content', () => spec.given([installed]).when({ ...command, ...upgrade }).then([{ type: 'plugin.installed', data: { ...upgrade, at: now } }]));
    it('keeps an upgraded plugin disabled when it was disabled', () =>
      spec.given([installed, disabled]).when({ ...command, ...upgrade }).then([{ type: 'plugin.installed', data: { ...upgrade, at: now } }, disabled]));
    it('installs a removed plugin again', () => spec.given([installed, removed]).when(command).then([installed]));
  });

  describe('enable-plugin / disable-plugin', () => {
    it('disables an enabled plugin', () => spec.given([installed]).when({ type: 'disable-plugin', ...ref }).then([disabled]));
    it('records nothing when disabling a disabled plugin', () => spec.given([installed, disabled]).when({ type: 'disable-plugin', ...ref }).then([]));
    it('enables a disabled plugin', () => spec.given([installed, disabled]).when({ type: 'enable-plugin', ...ref }).then([enabled]));
    it('records nothing when enabling an enabled plugin', () => spec.given([installed]).when({ type: 'enable-plugin', ...ref }).then([]));
    it('refuses a plugin never installed, naming plugin', () => spec.given([]).when({ type: 'enable-plugin', ...ref }).thenThrows(notFound));
    it('refuses a removed plugin, naming plugin', () => spec.given([installed, removed]).when({ type: 'disable-plugin', ...ref }).thenThrows(notFound));
  });

  describe('remove-plugin', () => {
    it('removes an installed plugin', () => spec.given([installed, disabled]).when({ type: 'remove-plugin', ...ref }).then([removed]));
    it('refuses to remove a plugin twice', () => spec.given([installed, removed]).when({ type: 'remove-plugin', ...ref }).thenThrows(notFound));
  });
});
