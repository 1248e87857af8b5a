import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest, readParts, validateManifest } from './plugin-package';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e as HeadspaceError;
  }
  throw new Error('expected a refusal');
};

describe('plugin manifest validation (.claude-plugin/plugin.json)', () => {
  it('accepts Claude Code’s manifest fields and keeps unknown ones', () => {
    const manifest = validateManifest({ name: 'security-toolkit', version: '1.2.0-beta.1', description: 'd', author: { name: 'A', email: 'a@example.com' }, license: 'MIT', keywords: ['x'], lspServers: {} });
    expect(manifest).toMatchObject({ name: 'security-toolkit', version: '1.2.0-beta.1', author: { name: 'A' }, lspServers: {} });
  });

  it.each([
    [{ name: 'kit', version: 'one' }, 'version'],
    [{ name: 'kit' }, 'version'],
    [{ version: '1.0.0' }, 'name'],
    [{ name: 'Security Toolkit', version: '1.0.0' }, 'name'],
    [{ name: 'kit', version: '1.0.0', author: 'someone' }, 'author'],
    [{ name: 'kit', version: '1.0.0', agents: '/etc/agents' }, 'agents'],
  ])('refuses %j naming %s', (raw, field) => {
    const error = refusal(() => validateManifest(raw));
    expect(error.code).toBe(ErrorCodes.pluginManifestInvalid);
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });
});

describe('reading a plugin directory', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function plugin(files: Record<string, string>): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'hs-plugin-unit-'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }
  const manifest = JSON.stringify({ name: 'kit', version: '1.0.0' });

  it('lists every part: namespaced agents, skills with a SKILL.md, commands, hook events and MCP servers', async () => {
    const root = await plugin({
      '.claude-plugin/plugin.json': manifest,
      'agents/scanner.md': '---\nname: scanner\ndescription: Scans code.\n---\nScan.\n',
      'skills/owasp/SKILL.md': '---\nname: owasp\ndescription: d\n---\nbody\n',
      'skills/empty/README.md': 'not a skill',
      'commands/scan.md': 'Scan.',
      'hooks/hooks.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/guard.sh' }] }] } }),
      '.mcp.json': JSON.stringify({ mcpServers: { deps: { command: '${CLAUDE_PLUGIN_ROOT}/server' } } }),
    });
    expect(await readParts(root, await readManifest(root))).toEqual({ agents: ['kit:scanner'], skills: ['owasp'], commands: ['scan'], hooks: ['PreToolUse'], mcpServers: ['deps'] });
  });

  it('refuses a directory without a manifest', async () => {
    const root = await plugin({ 'agents/a.md': 'x' });
    await expect(readManifest(root)).rejects.toMatchObject({ code: ErrorCodes.pluginManifestInvalid, field: '(file)' });
  });

  it('refuses an agent file that does not parse, naming the file', async () => {
    const root = await plugin({ '.claude-plugin/plugin.json': manifest, 'agents/broken.md': '---\nname: Broken Name\n---\nx\n' });
    await expect(readParts(root, await readManifest(root))).rejects.toMatchObject({ code: ErrorCodes.pluginManifestInvalid, message: expect.stringContaining('agents/broken.md') });
  });

  it('refuses a hooks.json with an unknown hook event, naming the field', async () => {
    const root = await plugin({ '.claude-plugin/plugin.json': manifest, 'hooks/hooks.json': JSON.stringify({ hooks: { BeforeEverything: [] } }) });
    await expect(readParts(root, await readManifest(root))).rejects.toMatchObject({ code: ErrorCodes.pluginManifestInvalid, message: expect.stringContaining('hooks/hooks.json') });
  });
});
