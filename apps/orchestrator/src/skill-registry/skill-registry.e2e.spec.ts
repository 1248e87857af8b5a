import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AskView } from '@headspace/contracts';
import { startSimulator } from '@headspace/llm';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';
import { recordingProxy, type RecordingProxy } from '../sessions/hook-endpoint/testing/recording-proxy';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
/** Text only the skill's body has: present in what the model is sent only once the skill is loaded. */
const BODY_MARK = 'Group the changes under Added, Changed and Fixed';
const RELEASE_NOTES = `---
name: release-notes
description: Drafts release notes (RELEASE_NOTES.md) from the recent changes. Use when asked for release notes.
allowed-tools: Read, Write
triggers: [release notes]
hooks:
  PostToolUse:
    - matcher: Write
      hooks:
        - type: command
          command: echo '{"systemMessage":"release-notes hook saw a write"}'
---
# Release notes
${BODY_MARK}, newest first.
`;

type ToolCall = { tool: string; isError: boolean; content?: string; hooks: Array<{ event: string; decision: string }> };

/**
 * The skills registry end to end (ADR 0046): a project with SKILL.md skills, asks through the gateway
 * and the CLI on the simulator. The requests the model received are recorded by a proxy in front of
 * the simulator (the orchestrator is pointed at it as its API), so the spec reads what was sent:
 * the description before the Skill call, the body only after it.
 */
describe('skills registry: listing, progressive disclosure, auto-invocation, slash commands, skill-scoped hooks', { timeout: 300_000 }, () => {
  let run: RunHarness;
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let proxy: RecordingProxy;
  let project: string;
  let endpoint: string;
  const h = () => run.h;
  const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => h().call({ method, url, ...(payload ? { payload } : {}) }, h().adminToken);
  const askEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'ask-%'`)).rows[0].n);

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 120_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  /** Runs an ask (through the API, or the CLI) to its end; its view, its tool calls and the Messages API requests of its session. */
  const ask = async (prompt: string, via: 'api' | 'cli' = 'api') => {
    const sent = proxy.bodies.length;
    let askId: string;
    if (via === 'cli') {
      const out = await cli(['ask', prompt, '-w', project, '-t', 'demo']);
      expect(out.code).toBe(0);
      askId = /✔ ask (\S+) completed/.exec(out.stdout)![1];
    } else {
      const started = await api('POST', '/api/v1/teams/demo/asks', { prompt, workspace: project });
      expect(started.statusCode).toBe(201);
      askId = (started.json() as { askId: string }).askId;
    }
    const view = await waitFor(async () => ((v: AskView) => (v.status === 'running' ? undefined : v))((await api('GET', `/api/v1/teams/demo/asks/${askId}`)).json() as AskView), {
      timeoutMs: 120_000,
      intervalMs: 200,
      message: `ask ${askId} to end`,
    });
    const { rows } = await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id = $1 ORDER BY stream_version`, [`session-${view.sessionId}`]);
    const requests = proxy.bodies
      .slice(sent)
      .filter((b) => b.startsWith('{'))
      .map((b) => JSON.parse(b) as { system?: Array<{ text: string }>; messages: unknown[] })
      .filter((r) => JSON.stringify(r.messages).includes(prompt.slice(0, 40)));
    return { view, calls: rows.map((r) => r.data as ToolCall), requests };
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, extraScenarioDirs: [join(__dirname, 'testing', 'scenarios')], announce: false });
    proxy = await recordingProxy(sim.url);
    // A placeholder key sends the orchestrator to ANTHROPIC_BASE_URL: the proxy, then the simulator.
    run = await startRunHarness({ label: 'skills', sourceRoots: true, env: { HS_SANDBOX: 'off', ANTHROPIC_API_KEY: 'sim-placeholder', ANTHROPIC_BASE_URL: proxy.url } });
    project = join(run.dir, 'projects', 'notes');
    await mkdir(join(project, '.claude', 'skills', 'release-notes'), { recursive: true });
    await writeFile(join(project, 'README.md'), '# Notes\n');
    await writeFile(join(project, '.claude', 'skills', 'release-notes', 'SKILL.md'), RELEASE_NOTES);
    await writeFile(join(project, '.claude', 'skills', 'release-notes', 'template.md'), '# Release notes\n');
    await mkdir(join(project, '.headspace', 'skills', 'broken'), { recursive: true });
    await writeFile(join(project, '.headspace', 'skills', 'broken', 'SKILL.md'), '---\nname: broken\n---\nNo description.\n');
    await mkdir(join(run.dir, 'agents', '.claude', 'skills', 'tidy'), { recursive: true });
    await writeFile(join(run.dir, 'agents', '.claude', 'skills', 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Tidies imports.\n---\nSort imports.\n');
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
    await proxy?.close();
    await sim?.close();
  });

  it('GET /api/v1/teams/:team/skills and `headspace skills list` show the project, user and enabled plugin skills and name the bad SKILL.md and its field', async () => {
    const kit = join(run.dir, 'projects', 'kit');
    await mkdir(join(kit, '.claude-plugin'), { recursive: true });
    await writeFile(join(kit, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'kit', version: '1.0.0' }));
    await mkdir(join(kit, 'skills', 'release-notes'), { recursive: true });
    await writeFile(join(kit, 'skills', 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: The kit’s own release notes.\n---\nKit body.\n');
    expect((await api('POST', '/api/v1/teams/demo/plugins', { source: kit })).statusCode).toBe(201);

    type Listing = { skills: Array<{ name: string; origin: string; description: string; file: string }>; invalid: Array<{ file: string; field: string }> };
    // The team's enabled plugins are a read model: the install shows there a moment after its 201.
    const listing = await waitFor(
      async () => {
        const res = await api('GET', `/api/v1/teams/demo/skills?workspace=${encodeURIComponent(project)}`);
        expect(res.statusCode).toBe(200);
        const body = res.json() as Listing;
        return body.skills.some((s) => s.origin === 'plugin') ? body : undefined;
      },
      { timeoutMs: 15_000, message: 'the plugin’s skill in the listing' },
    );
    // The plugin's skill of the same name is namespaced and clashes with nothing.
    expect(listing.skills.map((s) => [s.name, s.origin])).toEqual([
      ['kit:release-notes', 'plugin'],
      ['release-notes', 'project'],
      ['tidy', 'user'],
    ]);
    // Another team has not enabled the plugin.
    const other = (await api('GET', '/api/v1/teams/other/skills')).json() as { skills: Array<{ name: string }> };
    expect(other.skills.map((s) => s.name)).toEqual(['tidy']);
    expect(listing.skills[1].file).toMatch(/\.claude\/skills\/release-notes\/SKILL\.md$/);
    expect(listing.invalid).toEqual([expect.objectContaining({ field: 'description', file: expect.stringMatching(/broken\/SKILL\.md$/) })]);

    const out = await cli(['skills', 'list', '-t', 'demo', '-w', project]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/release-notes[\s│]+project[\s│]+Drafts release notes/);
    expect(out.stdout).toMatch(/tidy[\s│]+user[\s│]+Tidies imports\./);
    expect(out.stderr).toMatch(/broken\/SKILL\.md: description: is required/);

    const bad = await api('GET', '/api/v1/teams/demo/skills?workspace=/etc');
    expect(bad.statusCode).toBe(403);
    expect(bad.json()).toMatchObject({ field: 'workspace' });
  });

  it('an ask auto-invokes the skill from its description: only the description is sent until the Skill call, then the body; its hook fires only after loading', async () => {
    const { view, calls, requests } = await ask('draft the release notes for the greet change');
    expect(view.status).toBe('completed');
    expect(calls.map((c) => [c.tool, c.isError])).toEqual([
      ['Write', false],
      ['Skill', false],
      ['Write', false],
    ]);
    // The Write before the skill was loaded ran without its hook; the one after, with it.
    expect(calls[0].hooks.filter((h) => h.event === 'PostToolUse')).toEqual([]);
    expect(calls[2].hooks.filter((h) => h.event === 'PostToolUse').length).toBeGreaterThan(0);

    expect(requests.length).toBe(4);
    const text = (r: (typeof requests)[number]) => JSON.stringify(r);
    for (const r of requests.slice(0, 2)) {
      expect(text(r)).toContain('release-notes: Drafts release notes (RELEASE_NOTES.md)');
      expect(text(r)).not.toContain(BODY_MARK);
    }
    for (const r of requests.slice(2)) expect(text(r)).toContain(BODY_MARK);
    // The body came as the Skill call's result, with where its other files are.
    expect(text(requests[2])).toContain('template.md');
  });

  it('`headspace ask "/release-notes v2.0"` runs the ask with the skill loaded from the start, its hook active on the first Write', async () => {
    const { view, calls, requests } = await ask('/release-notes v2.0', 'cli');
    expect(view.status).toBe('completed');
    expect(calls.map((c) => c.tool)).toEqual(['Write']);
    expect(calls[0].hooks.filter((h) => h.event === 'PostToolUse').length).toBeGreaterThan(0);
    expect(JSON.stringify(requests[0].system)).toContain(BODY_MARK);
    expect(JSON.stringify(requests[0].system)).toContain('Arguments: v2.0');
  });

  it('a slash command naming no skill is a 400 naming `prompt`, and nothing is written', async () => {
    const before = await askEvents();
    const res = await api('POST', '/api/v1/teams/demo/asks', { prompt: '/no-such-skill now', workspace: project });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'SKILL_REGISTRY.UNKNOWN_SKILL', field: 'prompt' });
    const out = await cli(['ask', '/no-such-skill now', '-w', project, '-t', 'demo']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('no skill "no-such-skill"');
    expect(await askEvents()).toBe(before);
  });
});
