import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODEL_ALIASES } from '@headspace/agent-runtime';
import { createTeam, listAgents, sessionStreamId, subagentResultSchema, validateAgent } from '@headspace/contracts';
import type { EventStore, RecordedEvent } from '@headspace/event-store';
import { waitFor } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
import type { SessionEvent } from '../agent-session.decider';
import { SESSION_PORTS_FACTORY, type SessionPortsFactory, type SessionSupervisor } from '../session-supervisor';
import { startSessionsOnSimulator } from '../testing/sessions-on-simulator.harness';
import { AgentRegistries } from '../../agents/agent-registries.service';
import { SubagentSessions } from './subagent-sessions.service';

const team = 'delegators';
type Recorded = RecordedEvent & SessionEvent;

const REVIEWER = `---
name: reviewer
description: Reviews a change for correctness without editing anything. Use after an edit, e.g. "review src/greet.mjs".
tools: Read, Grep
model: haiku
maxTurns: 5
---
You review code and report concrete problems. You never edit files.
`;
const WRITER = `---
name: writer
description: Writes short project notes and docs. Use to record a decision, e.g. "write NOTES.md saying X".
tools: Read, Write
model: sonnet
maxTurns: 5
---
You write short, plain project notes.
`;
const BROKEN = `---
name: broken
description: Has a model no alias names, e.g. "gpt-4".
model: gpt-4
---
Never loads.
`;
/** A user-scope SubagentStop command hook: one JSON line per subagent that ends. */
const STOP_HOOK = { hooks: { SubagentStop: [{ hooks: [{ type: 'command', command: 'cat >> subagent-stops.jsonl; echo >> subagent-stops.jsonl' }] }] } };

let h: CostGovernorHarness;
let orchestrator: NestFastifyApplication;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;
let project: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-subagents-'));
  ({ h, orchestrator, supervisor, store } = await startSessionsOnSimulator({
    name: 'subagents',
    root,
    scenarios: join(__dirname, 'testing', 'scenarios'),
    orchestratorEnv: { HS_SOURCE_ROOTS: root },
  }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await mkdir(join(root, 'agents', '.headspace'), { recursive: true });
  await writeFile(join(root, 'agents', '.headspace', 'settings.json'), JSON.stringify(STOP_HOOK));
  project = join(root, 'project');
  await mkdir(join(project, '.headspace', 'agents'), { recursive: true });
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src', 'greet.mjs'), "export const greet = (name) => `Hello, ${name}!`;\n");
  await writeFile(join(project, '.headspace', 'agents', 'reviewer.md'), REVIEWER);
  await writeFile(join(project, '.headspace', 'agents', 'writer.md'), WRITER);
  await writeFile(join(project, '.headspace', 'agents', 'broken.md'), BROKEN);
  execFileSync('git', ['init', '-q'], { cwd: project });
});

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const eventsOf = async (sessionId: string) => (await store.readStream(sessionStreamId(sessionId))) as Recorded[];
const only = <T extends SessionEvent['type']>(events: Recorded[], type: T) => events.filter((e) => e.type === type) as Array<Recorded & Extract<SessionEvent, { type: T }>>;

describe('a lead delegates to custom agents as tools (simulator, real orchestrator, team-manager and cost governor)', () => {
  it('each agent runs as a child session with its own tools and model; the lead reads both AgentResults; SubagentStop fires twice', async () => {
    const sessionId = randomUUID();
    const ended = supervisor.whenEnded(sessionId);
    await supervisor.start({ sessionId, team, persona: 'lead', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Get the helper reviewed and the decision written down.', workspace: project, situation: 'delegate' });
    expect((await ended).exitReason).toBe('completed');

    // The lead read two AgentResults as its tool results, each naming the child session it came from.
    const calls = only(await eventsOf(sessionId), 'session.tool-called').map((e) => e.data);
    expect(calls.map((c) => c.tool)).toEqual(['agent__reviewer', 'agent__writer']);
    const [review, note] = calls.map((c) => subagentResultSchema.parse(JSON.parse(c.content)));
    expect(review).toMatchObject({ agent: 'reviewer', status: 'completed', exitReason: 'completed', model: MODEL_ALIASES.haiku, summary: expect.stringContaining('no problems found') });
    expect(note).toMatchObject({ agent: 'writer', status: 'completed', model: MODEL_ALIASES.sonnet, filesModified: ['NOTES.md'] });
    expect(calls[1].filesModified).toEqual(['NOTES.md']);
    for (const r of [review, note]) {
      expect(r.turnsUsed).toBe(3);
      expect(r.tokensConsumed.output).toBeGreaterThan(0);
      expect(r.costUsd).toBeGreaterThan(0);
    }
    // SubagentStop fired once per child: the lead's settings hook ran (recorded with the call, and its file).
    for (const c of calls) expect(c.hooks.filter((x) => x.event === 'SubagentStop')).toHaveLength(1);
    const stops = (await readFile(join(project, 'subagent-stops.jsonl'), 'utf8')).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(stops.map((s) => [s.hook_event_name, s.agent_type, s.subagent_id])).toEqual([
      ['SubagentStop', 'reviewer', review.sessionId],
      ['SubagentStop', 'writer', note.sessionId],
    ]);

    // Each child is a session of its own, started with its lead, on its own model and allow-list.
    const reviewer = await eventsOf(review.sessionId);
    const [reviewerStart] = only(reviewer, 'session.started');
    expect(reviewerStart.data).toMatchObject({ parentSessionId: sessionId, persona: 'reviewer', model: MODEL_ALIASES.haiku, tools: ['Read', 'Grep'], situation: 'subagent' });
    expect(only(reviewer, 'session.model-called').map((e) => e.data.model)).toEqual(Array(3).fill(MODEL_ALIASES.haiku));
    const reviewerCalls = only(reviewer, 'session.tool-called').map((e) => e.data);
    expect(reviewerCalls.map((c) => [c.tool, c.isError])).toEqual([
      ['Read', false],
      ['Write', true],
    ]);
    expect(reviewerCalls[1].content).toContain('"Write" is not in this persona\'s allowed tools (Read, Grep)');
    await expect(stat(join(project, 'REVIEW.md'))).rejects.toThrow();

    const writer = await eventsOf(note.sessionId);
    expect(only(writer, 'session.started')[0].data).toMatchObject({ parentSessionId: sessionId, persona: 'writer', model: MODEL_ALIASES.sonnet, tools: ['Read', 'Write'] });
    expect(only(writer, 'session.model-called').map((e) => e.data.model)).toEqual(Array(3).fill(MODEL_ALIASES.sonnet));
    expect(only(writer, 'session.tool-called').map((e) => [e.data.tool, e.data.isError])).toEqual([
      ['Write', false],
      ['Bash', true],
    ]);
    expect(await readFile(join(project, 'NOTES.md'), 'utf8')).toBe('greet() stays as it is.\n');

    // A lead resumed after a crash asks again for the same call: it reads the ended child's result, nothing runs again.
    const [leadStart] = only(await eventsOf(sessionId), 'session.started');
    const writerDef = await orchestrator.get(AgentRegistries).resolve('writer', project);
    const again = await orchestrator.get(SubagentSessions).delegate(leadStart.data, writerDef, { prompt: 'Write NOTES.md', toolUseId: calls[1].toolUseId });
    expect(again).toEqual(note);
    expect(await eventsOf(note.sessionId)).toHaveLength(writer.length);

    // The child's system prompt is its definition's body, and it is offered only its own tools.
    const factory = orchestrator.get<SessionPortsFactory>(SESSION_PORTS_FACTORY);
    const child = await factory.create({ ...reviewerStart.data, sessionId: randomUUID() });
    expect(String(child.ports.system[0].text)).toContain('You review code and report concrete problems.');
    expect(child.ports.tools.definitions().map((d) => d.name)).not.toContain('Write');
    expect(child.ports.tools.definitions().map((d) => d.name)).not.toContain('agent__writer');
    expect(child.limits.maxTurns).toBe(5);
    await child.close?.();
  });

  it('a lead whose allow-list does not name Agent is offered no agent tools', async () => {
    const factory = orchestrator.get<SessionPortsFactory>(SESSION_PORTS_FACTORY);
    const base = { team, persona: 'lead', kind: 'task' as const, model: 'sonnet', effort: 'quick' as const, runtime: 'built-in' as const, simulated: true, prompt: 'x', workspace: project, startedAt: new Date().toISOString() };
    const limited = await factory.create({ ...base, sessionId: randomUUID(), tools: ['Read'] });
    const delegating = await factory.create({ ...base, sessionId: randomUUID(), tools: ['Read', 'Agent(writer)'] });
    expect(limited.ports.tools.definitions().map((d) => String(d.name)).filter((n) => n.startsWith('agent__'))).toEqual([]);
    expect(delegating.ports.tools.definitions().map((d) => String(d.name)).filter((n) => n.startsWith('agent__'))).toEqual(['agent__writer']);
    await Promise.all([limited.close?.(), delegating.close?.()]);
  });

  it('list-agents shows project agents over user ones and templates, the invalid file with its field, warnings, and reloads on change', async () => {
    await mkdir(join(root, 'agents', 'agents'), { recursive: true });
    await writeFile(join(root, 'agents', 'agents', 'writer.md'), WRITER.replace('model: sonnet', 'model: opus'));
    const first = await h.send(listAgents, { team, source: project });
    const names = first.agents.map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(['reviewer', 'writer', 'code-reviewer', 'researcher']));
    expect(first.agents.find((a) => a.name === 'reviewer')).toMatchObject({ scope: 'project', model: MODEL_ALIASES.haiku, tools: ['Read', 'Grep'] });
    expect(first.errors).toContainEqual({ file: join(project, '.headspace', 'agents', 'broken.md'), field: 'model', message: expect.any(String) });
    expect(names).not.toContain('broken');
    // The user directory did not exist when the project's registry was opened: it is read once it does.
    expect(first.shadowed).toEqual([{ name: 'writer', source: join(root, 'agents', 'agents', 'writer.md'), by: join(project, '.headspace', 'agents', 'writer.md') }]);

    // Hot reload: a new project agent is listed without a restart.
    await writeFile(join(project, '.headspace', 'agents', 'tester.md'), WRITER.replace('name: writer', 'name: tester').replace('Writes short', 'Helps with'));
    const later = await waitFor(
      async () => {
        const listing = await h.send(listAgents, { team, source: project });
        return listing.agents.some((a) => a.name === 'tester') ? listing : undefined;
      },
      { message: 'the new agent file listed' },
    );
    expect(later.agents.find((a) => a.name === 'writer')).toMatchObject({ scope: 'project', model: MODEL_ALIASES.sonnet, shadows: [join(root, 'agents', 'agents', 'writer.md')] });
    expect(later.warnings).toContainEqual(expect.objectContaining({ code: 'AGENT_ANTI_PATTERN.VAGUE_DESCRIPTION', agent: 'tester' }));
  });

  it('validate-agent names the field of an invalid file and the anti-patterns of a valid one', async () => {
    const bad = await h.send(validateAgent, { file: 'broken.md', text: BROKEN });
    expect(bad).toMatchObject({ valid: false, errors: [{ file: 'broken.md', field: 'model', message: expect.any(String) }] });
    const noName = await h.send(validateAgent, { file: 'x.md', text: '---\ndescription: d\n---\nbody' });
    expect(noName.errors).toContainEqual({ file: 'x.md', field: 'name', message: 'is required' });
    const ok = await h.send(validateAgent, { file: 'reviewer.md', text: REVIEWER.replace('maxTurns: 5\n', '') });
    expect(ok).toMatchObject({ valid: true, name: 'reviewer', errors: [] });
    expect(ok.warnings.map((w) => w.code)).toEqual(['AGENT_ANTI_PATTERN.MISSING_MAX_TURNS']);
  });
});
