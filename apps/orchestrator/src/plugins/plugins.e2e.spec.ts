import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AskView, PluginView } from '@headspace/contracts';
import { FIXTURE_MCP_STDIO_SCRIPT, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
const REVIEWER = `---
name: reviewer
description: Reviews a change for security problems without editing anything.
tools: Read, Grep
model: haiku
---
You review code for vulnerabilities and report them. You never edit files.
`;
const SKILL = `---
name: owasp-checklist
description: Checks a change against the OWASP top ten.
---
Walk through each OWASP category and note what applies.
`;
// Refuses every Read of the sessions it joins: the refusal, with this reason, is in the session's events.
const GUARD = 'echo "guard-kit refused the read" >&2; exit 2';

/**
 * Plugins end to end: a Claude Code-format plugin in a local git repository (agent, skill, command,
 * hook, MCP server) installed into team red through the CLI and the gateway; its parts show in red's
 * agent and MCP listings and its hook fires in red's sessions (an ask on the simulator) but not in
 * blue's; disabling takes every part away; a malformed manifest is refused naming the field. Sandbox
 * off: the MCP fixture needs the repository's node_modules, which a sandbox does not mount.
 */
describe('plugins: install, scope, enable/disable, remove through the gateway and the CLI', { timeout: 300_000 }, () => {
  let run: RunHarness;
  /** The source root (HS_SOURCE_ROOTS): plugin repositories, the marketplace and the project asks run in. */
  let base: string;
  let endpoint: string;
  let repo: string;
  let project: string;
  const h = () => run.h;
  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) => h().call({ method, url, ...(payload ? { payload } : {}) }, h().adminToken);
  const pluginEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'plugin-%'`)).rows[0].n);
  const listed = async (team: string) => ((await api('GET', `/api/v1/teams/${team}/plugins`)).json() as { plugins: PluginView[] }).plugins;
  const agents = async (team: string) => ((await api('GET', `/api/v1/teams/${team}/agents`)).json() as { agents: Array<{ name: string; scope: string }> }).agents;
  const mcpServers = async (team: string) =>
    ((await api('GET', `/api/v1/teams/${team}/mcp-tools?source=${encodeURIComponent(project)}`)).json() as { servers: Array<{ name: string; status: string; tools: Array<{ name: string }> }> }).servers;

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 120_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  /** Runs "fix the typo in README.md" as an ask of the team; the Read calls of its session, with the hooks that fired on them. */
  const askReads = async (team: string) => {
    const started = await api('POST', `/api/v1/teams/${team}/asks`, { prompt: 'fix the typo in README.md', workspace: project });
    expect(started.statusCode).toBe(201);
    const { askId } = started.json() as { askId: string };
    const ask = await waitFor(
      async () => ((v: AskView) => (v.status === 'running' ? undefined : v))((await api('GET', `/api/v1/teams/${team}/asks/${askId}`)).json() as AskView),
      { timeoutMs: 120_000, intervalMs: 200, message: `ask ${askId} to end` },
    );
    const { rows } = await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id = $1 ORDER BY stream_version`, [`session-${ask.sessionId}`]);
    return rows.map((r) => r.data as { tool: string; isError: boolean; hooks: Array<{ event: string; decision: string; reason?: string }> }).filter((c) => c.tool === 'Read');
  };

  /** A plugin repository made with git: one commit of `files` (paths relative to its root). */
  async function gitPlugin(dir: string, files: Record<string, string>): Promise<string> {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=spec', '-c', 'user.email=spec@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'plugin');
    return git('rev-parse', 'HEAD').trim();
  }

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'hs-plugin-sources-'));
    run = await startRunHarness({
      label: 'plugins',
      env: { HS_SANDBOX: 'off', HS_MCP_CONNECT_TIMEOUT_MS: '60000', HS_SOURCE_ROOTS: base, HS_PLUGIN_MARKETPLACE: join(base, 'market') },
    });
    project = join(base, 'app');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), '# App\n\nThis is teh app.\n');
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('a plugin from a local git repository installs into its team only: its agent, skill, MCP server and hook take effect there and nowhere else; disabling removes them', async () => {
    repo = join(base, 'guard-kit');
    const commit = await gitPlugin(repo, {
      '.claude-plugin/plugin.json': JSON.stringify({ name: 'guard-kit', version: '1.2.0', description: 'Security guard rails', author: { name: 'Spec' }, license: 'MIT' }),
      'agents/reviewer.md': REVIEWER,
      'skills/owasp-checklist/SKILL.md': SKILL,
      'commands/security-scan.md': '---\ndescription: Scan the codebase\n---\nScan for vulnerabilities.\n',
      'hooks/hooks.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: GUARD }] }] } }),
      '.mcp.json': JSON.stringify({ mcpServers: { 'guard-tools': { command: process.execPath, args: ['-r', require.resolve('@swc-node/register'), FIXTURE_MCP_STDIO_SCRIPT] } } }),
    });

    const installed = await cli(['plugin', 'install', pathToFileURL(repo).href, '-t', 'red']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('plugin guard-kit 1.2.0 installed');
    expect(installed.stdout).toMatch(/agents: +guard-kit:reviewer/);

    const view = (await api('GET', '/api/v1/teams/red/plugins/guard-kit')).json() as PluginView;
    expect(view).toMatchObject({
      plugin: 'guard-kit',
      version: '1.2.0',
      commit,
      enabled: true,
      parts: { agents: ['guard-kit:reviewer'], skills: ['owasp-checklist'], commands: ['security-scan'], hooks: ['PreToolUse'], mcpServers: ['guard-tools'] },
    });
    // The installed copy lives under the agent home; moving the source away changes nothing.
    expect(view.dir.startsWith(join(run.dir, 'agents', 'plugins', 'red', 'guard-kit'))).toBe(true);
    expect(await readFile(join(view.dir, 'skills', 'owasp-checklist', 'SKILL.md'), 'utf8')).toBe(SKILL);
    await rename(repo, `${repo}-moved`);

    await waitFor(async () => ((await listed('red'))[0]?.enabled ? true : undefined), { timeoutMs: 30_000, intervalMs: 100, message: 'guard-kit in the plugins read model' });
    expect(await listed('blue')).toEqual([]);

    expect(await agents('red')).toContainEqual(expect.objectContaining({ name: 'guard-kit:reviewer', scope: 'plugin' }));
    expect((await agents('blue')).map((a) => a.name)).not.toContain('guard-kit:reviewer');

    const redServers = await mcpServers('red');
    expect(redServers.find((s) => s.name === 'guard-tools')).toMatchObject({ status: 'connected', tools: expect.arrayContaining([expect.objectContaining({ name: 'mcp__guard-tools__echo' })]) });
    expect((await mcpServers('blue')).map((s) => s.name)).not.toContain('guard-tools');

    // The hook fires in a session of red, and not in one of blue.
    const redReads = await askReads('red');
    expect(redReads[0]).toMatchObject({ isError: true });
    expect(redReads[0].hooks).toContainEqual(expect.objectContaining({ event: 'PreToolUse', decision: 'deny', reason: expect.stringContaining('guard-kit refused the read') }));
    const blueReads = await askReads('blue');
    expect(blueReads[0]).toMatchObject({ isError: false });
    expect(JSON.stringify(blueReads[0].hooks)).not.toContain('guard-kit');

    // Disabled: every part leaves red's sessions and listings; the plugin stays installed.
    const disabled = await cli(['plugin', 'disable', 'guard-kit', '-t', 'red']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('plugin guard-kit disabled');
    await waitFor(async () => ((await listed('red'))[0]?.enabled === false ? true : undefined), { timeoutMs: 30_000, intervalMs: 100, message: 'guard-kit disabled in the read model' });
    expect((await agents('red')).map((a) => a.name)).not.toContain('guard-kit:reviewer');
    expect((await mcpServers('red')).map((s) => s.name)).not.toContain('guard-tools');
    const afterDisable = await askReads('red');
    expect(afterDisable[0]).toMatchObject({ isError: false });
    expect(JSON.stringify(afterDisable[0].hooks)).not.toContain('guard-kit');

    const list = await cli(['plugin', 'list', '-t', 'red']);
    expect(list.stdout).toMatch(/guard-kit\W+1\.2\.0\W+[0-9a-f]{12}\W+disabled/);

    const removed = await cli(['plugin', 'remove', 'guard-kit', '-t', 'red']);
    expect(removed.code).toBe(0);
    await waitFor(async () => ((await listed('red')).length === 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100, message: 'guard-kit removed from the read model' });
    expect((await api('GET', '/api/v1/teams/red/plugins/guard-kit')).statusCode).toBe(404);
    expect((await api('POST', '/api/v1/teams/red/plugins/guard-kit/enable')).statusCode).toBe(404);
  });

  it('a malformed manifest is refused with a 400 naming the field, and nothing is recorded or kept', async () => {
    const bad = join(base, 'bad-kit');
    await gitPlugin(bad, { '.claude-plugin/plugin.json': JSON.stringify({ name: 'bad-kit', version: 'one' }), 'agents/x.md': REVIEWER });
    const before = await pluginEvents();

    const refused = await api('POST', '/api/v1/teams/red/plugins', { source: bad });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'PLUGIN.MANIFEST_INVALID', field: 'version' });

    const outside = await api('POST', '/api/v1/teams/red/plugins', { source: '/etc' });
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({ code: 'RUN.SOURCE_NOT_ALLOWED', field: 'source', detail: expect.stringMatching(/^Plugin source/) });

    const noSource = await api('POST', '/api/v1/teams/red/plugins', { ref: 'main' });
    expect(noSource.statusCode).toBe(400);
    expect(noSource.json()).toMatchObject({ field: 'source' });

    const noName = join(base, 'nameless-kit');
    await gitPlugin(noName, { '.claude-plugin/plugin.json': JSON.stringify({ version: '1.0.0' }) });
    const byCli = await cli(['plugin', 'install', noName, '-t', 'red']);
    expect(byCli.code).not.toBe(0);
    expect(byCli.stderr).toMatch(/name/);

    expect(await pluginEvents()).toBe(before);
    expect(await stat(join(run.dir, 'agents', 'plugins', 'red', 'bad-kit')).then(() => true, () => false)).toBe(false);
  });

  it('versioned: the same commit installs once, a new commit upgrades to a copy of its own, --ref installs an older commit', async () => {
    const repoDir = join(base, 'lint-kit');
    const first = await gitPlugin(repoDir, { '.claude-plugin/plugin.json': JSON.stringify({ name: 'lint-kit', version: '1.0.0' }), 'commands/lint.md': 'Lint.' });
    const install = async (...extra: string[]) => {
      const out = await cli(['plugin', 'install', repoDir, '-t', 'green', '--json', ...extra]);
      expect(out.stderr).toBe('');
      return JSON.parse(out.stdout) as PluginView;
    };
    const v1 = await install();
    expect(v1).toMatchObject({ version: '1.0.0', commit: first, parts: { commands: ['lint'] } });
    const events = await pluginEvents();
    expect(await install()).toMatchObject({ version: '1.0.0', commit: first, dir: v1.dir });
    expect(await pluginEvents()).toBe(events);

    await writeFile(join(repoDir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'lint-kit', version: '1.1.0' }));
    execFileSync('git', ['-c', 'user.name=spec', '-c', 'user.email=spec@example.com', '-c', 'commit.gpgsign=false', 'commit', '-qam', 'v1.1.0'], { cwd: repoDir });
    const second = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoDir, encoding: 'utf8' }).trim();
    const v2 = await install();
    expect(v2).toMatchObject({ version: '1.1.0', commit: second });
    expect(v2.dir).not.toBe(v1.dir);
    expect(JSON.parse(await readFile(join(v1.dir, '.claude-plugin', 'plugin.json'), 'utf8')).version).toBe('1.0.0');

    expect(await install('--ref', first)).toMatchObject({ version: '1.0.0', commit: first, dir: v1.dir });
    const badRef = await api('POST', '/api/v1/teams/green/plugins', { source: repoDir, ref: '--upload-pack=evil' });
    expect(badRef.statusCode).toBe(400);
    expect(badRef.json()).toMatchObject({ field: 'ref' });
  });

  it('a plugin listed in the local marketplace is offered and installs by its name', async () => {
    const market = join(base, 'market');
    await gitPlugin(join(market, 'plugins', 'notes-kit'), { '.claude-plugin/plugin.json': JSON.stringify({ name: 'notes-kit', version: '0.1.0' }), 'skills/notes/SKILL.md': SKILL });
    await mkdir(join(market, '.claude-plugin'), { recursive: true });
    await writeFile(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({ name: 'local', owner: { name: 'Spec' }, plugins: [{ name: 'notes-kit', source: './plugins/notes-kit', description: 'Notes' }] }));

    const offered = (await api('GET', '/api/v1/plugins/marketplace')).json() as { name: string; plugins: Array<{ name: string; description: string }> };
    expect(offered).toMatchObject({ name: 'local', plugins: [{ name: 'notes-kit', description: 'Notes' }] });

    const installed = await cli(['plugin', 'install', 'notes-kit@local', '-t', 'blue']);
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const view = (await api('GET', '/api/v1/teams/blue/plugins/notes-kit')).json() as PluginView;
    expect(view).toMatchObject({ version: '0.1.0', source: join(market, 'plugins', 'notes-kit'), enabled: true, parts: { skills: ['notes'], agents: [] } });

    const unknown = await api('POST', '/api/v1/teams/blue/plugins', { source: 'no-such-kit' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'PLUGIN.SOURCE_INVALID', field: 'source', detail: expect.stringContaining('no-such-kit') });
  });
});
