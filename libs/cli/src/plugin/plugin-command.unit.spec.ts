import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginLines, sourceArg } from './plugin-command';

describe('headspace plugin', () => {
  it('sends a typed local path absolute, and URLs, scp-style git addresses and marketplace names as given', () => {
    expect(sourceArg('./plugins/kit')).toBe(resolve('./plugins/kit'));
    expect(sourceArg('plugins/kit')).toBe(resolve('plugins/kit'));
    expect(sourceArg('/srv/plugins/kit')).toBe('/srv/plugins/kit');
    expect(sourceArg('file:///srv/plugins/kit')).toBe('file:///srv/plugins/kit');
    expect(sourceArg('https://github.com/org/kit.git')).toBe('https://github.com/org/kit.git');
    expect(sourceArg('git@github.com:org/kit.git')).toBe('git@github.com:org/kit.git');
    expect(sourceArg('security-toolkit')).toBe('security-toolkit');
    expect(sourceArg('security-toolkit@community')).toBe('security-toolkit@community');
  });

  it('prints a plugin with its version, short commit, state and every kind of part', () => {
    const lines = pluginLines({
      plugin: 'kit',
      version: '1.2.0',
      description: null,
      source: '/srv/kit',
      commit: 'abcdef0123456789abcdef0123456789abcdef01',
      enabled: false,
      parts: { agents: ['kit:reviewer'], skills: [], commands: ['scan'], hooks: ['PreToolUse'], mcpServers: ['deps'] },
    });
    expect(lines[0]).toBe('kit 1.2.0 (abcdef012345) disabled');
    expect(lines).toContain('agents:      kit:reviewer');
    expect(lines).toContain('skills:      -');
    expect(lines).toContain('mcp servers: deps');
  });
});
