import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The CLI runs in this process against the gateway (its own specs boot the gateway harness, hence the cycle the rule sees).
import { DEFAULT_SKILL_BUDGET, parseSkillFile, skillTokens } from '@headspace/agent-runtime';
import { sessionStreamId, skillStreamId, type EventData, type skillUpdated } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { loadConfig } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../testing/in-process-cli';
// The spec boots the real services a session passes through; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as GatewayModule } from '../../../gateway/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../../../gateway/src/config';
import { LlmBackendProvider } from '../sessions/ports/llm-backend.provider';
import { startSessionsOnSimulator } from '../sessions/testing/sessions-on-simulator.harness';
import { teammateSessionIdFor } from '../teammates/teammate-session';

/**
 * Skill evolution through the product (issue 22 scope 3): sessions on the Messages-API simulator
 * (scenarios in testing/scenarios) whose reflections carry `skill_updates`, the team-manager's
 * approvals queue, the gateway's REST API and the CLI, on real PostgreSQL and NATS.
 */
const adminToken = `hst_spec_${randomBytes(24).toString('hex')}`;
let h: CostGovernorHarness;
let orchestrator: NestFastifyApplication;
let store: EventStore;
let root: string;
let base: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-skills-'));
  ({ h, orchestrator, store } = await startSessionsOnSimulator({
    name: 'skills',
    root,
    scenarios: join(__dirname, 'testing', 'scenarios'),
    env: { HS_ADMIN_TOKEN: adminToken },
    orchestratorEnv: { HS_EXPERIENCE_MAX_ENTRIES: '2' },
  }));
  const gateway = await h.addCompanion(GatewayModule.forRoot(loadConfig(gatewayConfig, h.env, GATEWAY)));
  await gateway.listen(0, '127.0.0.1');
  base = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

type Body = Record<string, unknown> & { items?: Array<Record<string, unknown>> };
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
};

/** Runs `headspace …` in this process against the gateway. */
const cli = (args: string[]) =>
  runCliCaptured(args, { HEADSPACE_URL: base, HEADSPACE_TOKEN: adminToken, HEADSPACE_CONFIG: join(root, 'cli.json'), NO_COLOR: '1' });

const skillText = async (persona: string) => String((await api('GET', `/api/v1/personas/${persona}/skill`)).body.text);
const skillEvents = async (persona: string) => (await store.readStream(skillStreamId(persona))).map((e) => e.data as EventData<typeof skillUpdated>);

/** Spawns `name` as a teammate in a new team with `task`; resolves once its session has ended (and returns its id). */
async function sessionOf(team: string, name: string, task: string, mode?: string): Promise<string> {
  expect((await api('POST', '/api/v1/teams', { name: team })).status).toBe(201);
  if (mode) expect((await cli(['skill', 'mode', mode, '--team', team])).code).toBe(0);
  const spawned = await api('POST', `/api/v1/teams/${team}/members`, { name, task });
  expect(spawned.status).toBe(201);
  const sessionId = teammateSessionIdFor(String(spawned.body.sessionKey));
  await waitFor(async () => (await store.readStream(sessionStreamId(sessionId))).some((e) => e.type === 'session.ended') || undefined, {
    timeoutMs: 60_000,
    message: `${name}'s session in ${team} to end`,
  });
  return sessionId;
}

const pendingSkillApprovals = async (team: string) =>
  waitFor(async () => {
    const { items } = (await api('GET', `/api/v1/teams/${team}/approvals?kind=skill-file-update`)).body;
    return items?.length ? items : undefined;
  }, { timeoutMs: 20_000, message: `a skill-file-update approval in ${team}` });

describe('skill evolution', () => {
  it('v1: skill_updates become an approval; approved, the lines land in skill.md and the next session’s system prompt carries them; denied, nothing changes', async () => {
    const line = 'Writes release notes in the Keep a Changelog format';
    await sessionOf('sk-first', 'scribe', 'Write the release notes');

    const [approval] = await pendingSkillApprovals('sk-first');
    expect(approval).toMatchObject({ kind: 'skill-file-update', requester: 'scribe', status: 'pending', payload: { persona: 'scribe', lines: [expect.stringContaining(line)] } });
    // The session ran on the shipped default; nothing is merged before the answer.
    const before = await skillText('scribe');
    expect(before).toContain('## Core Competencies');
    expect(before).not.toContain(line);

    const answered = await api('POST', `/api/v1/teams/sk-first/approvals/${String(approval.approvalId)}/answer`, { decision: 'approve', answeredBy: 'operator' });
    expect(answered.status).toBe(200);
    await waitFor(async () => (await skillText('scribe')).includes(line) || undefined, { timeoutMs: 20_000, message: 'the approved line in skill.md' });
    const file = parseSkillFile(await readFile(join(root, 'agents', 'personas', 'scribe', 'skill.md'), 'utf8'));
    expect(file.sections.find((s) => s.name === 'Learned Experience')?.lines).toEqual([expect.stringContaining(line)]);
    expect(await skillEvents('scribe')).toEqual([expect.objectContaining({ source: 'approval', approvalId: approval.approvalId, added: [expect.stringContaining(line)], team: 'sk-first' })]);
    const shown = await cli(['skill', 'show', 'scribe']);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(line);

    // A denied proposal changes nothing.
    await sessionOf('sk-denied', 'scribe', 'Tidy the notes (this one gets denied)');
    const [denied] = await pendingSkillApprovals('sk-denied');
    expect(denied.payload).toMatchObject({ lines: [expect.stringContaining('Indents markdown lists with tabs')] });
    expect((await api('POST', `/api/v1/teams/sk-denied/approvals/${String(denied.approvalId)}/answer`, { decision: 'deny', answeredBy: 'operator' })).status).toBe(200);

    // The next session of the persona: its first model request's system prompt carries the approved line.
    const sim = (await orchestrator.get(LlmBackendProvider).get()).simulator;
    await sessionOf('sk-next', 'scribe', 'Write the next release notes');
    const request = sim?.handler.lastRequest;
    expect(JSON.stringify(request?.messages ?? [])).toContain('Write the next release notes');
    expect(JSON.stringify(request?.system)).toContain(line);
    expect(JSON.stringify(request?.system)).not.toContain('Indents markdown lists with tabs');
    expect(await skillText('scribe')).not.toContain('Indents markdown lists with tabs');
    expect((await skillEvents('scribe')).filter((e) => e.source === 'approval')).toHaveLength(1);
  }, 180_000);

  it('v3 auto: proposals merge without an approval and skill.md stays within its token budget, the oldest learned lines moved to experience.md; the core is never cut', async () => {
    const oldLines = Array.from({ length: 30 }, (_, i) => `- Old lesson number ${i} about something learned long ago in a past sprint (2026-01-${String((i % 28) + 1).padStart(2, '0')})`);
    const core = '## Core Competencies\n- Technical writing\n- API documentation\n\n## Preferences\n- Short sentences';
    const put = await api('PUT', '/api/v1/personas/quill/skill', { text: `# Quill — Skill Profile\n\n${core}\n\n## Learned Experience\n${oldLines.join('\n')}\n` });
    expect(put.status).toBe(200);
    expect(Number(put.body.experienceTokens)).toBeGreaterThan(DEFAULT_SKILL_BUDGET.experienceTokens);

    await sessionOf('sk-auto', 'quill', 'Review the docs', 'auto');
    const text = await waitFor(async () => {
      const t = await skillText('quill');
      return t.includes('Keeps READMEs under one screen per section') ? t : undefined;
    }, { timeoutMs: 20_000, message: 'the auto-merged lines' });
    const file = parseSkillFile(text);
    expect(skillTokens(file).experienceTokens).toBeLessThanOrEqual(DEFAULT_SKILL_BUDGET.experienceTokens);
    expect(text).toContain(core);
    expect(text).toContain('Reviews API docs against the OpenAPI document');
    expect(text).not.toContain('Old lesson number 0 ');
    expect((await api('GET', '/api/v1/teams/sk-auto/approvals?kind=skill-file-update&status=all')).body.items).toEqual([]);
    // The session's own line follows the curation's in the same pass of the learnings processor.
    const experience = await waitFor(
      async () => ((t) => (t.includes('[completed] ') ? t : undefined))(await readFile(join(root, 'agents', 'personas', 'quill', 'experience.md'), 'utf8')),
      { timeoutMs: 10_000, message: "quill's experience line" },
    );
    expect(experience).toContain('[completed] ');
    const events = await skillEvents('quill');
    expect(events.map((e) => e.source)).toEqual(['operator', 'auto']);
    expect(events[1].removed[0]).toContain('Old lesson number 0 ');
  }, 120_000);

  it('v2 pending: the proposal waits in skill.md’s Pending section; the operator curates it with `headspace skill edit`', async () => {
    await sessionOf('sk-pending', 'penn', 'Write the migration', 'pending');
    const view = await waitFor(async () => {
      const { body } = await api('GET', '/api/v1/personas/penn/skill');
      return (body.pending as string[]).length ? body : undefined;
    }, { timeoutMs: 20_000, message: 'the pending line' });
    expect(view.pending).toEqual([expect.stringContaining('Pairs every migration with a rollback')]);
    expect(String(view.text)).toMatch(/## Pending\n- Pairs every migration with a rollback/);

    // The operator keeps it: moved into Learned Experience through the CLI.
    const curated = String(view.text).replace(/\n## Pending\n(- .*)\n?$/, '').replace('## Learned Experience', `## Learned Experience\n${(view.pending as string[])[0]}`);
    const file = join(root, 'penn-skill.md');
    await writeFile(file, curated);
    const edited = await cli(['skill', 'edit', 'penn', '--file', file]);
    expect(edited.code, edited.err).toBe(0);
    const after = (await api('GET', '/api/v1/personas/penn/skill')).body;
    expect(after.pending).toEqual([]);
    expect(String(after.text)).toContain('## Learned Experience\n- Pairs every migration with a rollback');
  }, 120_000);

  it('experience.md gains a line per completed session and is pruned to HS_EXPERIENCE_MAX_ENTRIES (2 here), oldest out', async () => {
    // Scribe completed three sessions in the first spec (sk-first, sk-denied, sk-next).
    const path = join(root, 'agents', 'personas', 'scribe', 'experience.md');
    const lines = await waitFor(async () => {
      const entries = (await readFile(path, 'utf8').catch(() => '')).split('\n').filter((l) => l.startsWith('- '));
      return entries.some((l) => l.includes('teammate in sk-next')) ? entries : undefined;
    }, { timeoutMs: 20_000, message: 'the last session in experience.md' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^- \d{4}-\d{2}-\d{2} \[completed\] teammate in sk-denied: \[simulated\] Done\.; learned: Nothing special\. \(ref: /);
    expect(lines[1]).toMatch(/\[completed\] teammate in sk-next: \[simulated\] Notes written\.; learned: Outlining the notes first\./);
    expect(lines.join('\n')).not.toContain('sk-first');
    expect(await readFile(join(root, 'agents', 'personas', 'scribe', 'archive.md'), 'utf8')).toContain('teammate in sk-first');
  });

  it('refuses a skill.md without a title and a persona id that is not one, naming the field, writing nothing', async () => {
    const bad = await api('PUT', '/api/v1/personas/scribe/skill', { text: 'no title here' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('text');
    const badPersona = await api('GET', '/api/v1/personas/Not_A_Persona/skill');
    expect(badPersona.status).toBe(400);
    expect(JSON.stringify(badPersona.body)).toContain('persona');
    const badMode = await api('PUT', '/api/v1/teams/sk-first/skill-curation', { mode: 'sometimes' });
    expect(badMode.status).toBe(400);
    expect(JSON.stringify(badMode.body)).toContain('mode');
    expect((await api('GET', '/api/v1/teams/sk-first/skill-curation')).body).toEqual({ team: 'sk-first', mode: 'approval' });
  });
});
