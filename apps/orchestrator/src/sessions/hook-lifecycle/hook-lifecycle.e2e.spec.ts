import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, getSpend, sessionStreamId } from '@headspace/contracts';
import type { EventStore, RecordedEvent } from '@headspace/event-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
import type { SessionEvent } from '../agent-session.decider';
import type { SessionSupervisor } from '../session-supervisor';
import { startSessionsOnSimulator } from '../testing/sessions-on-simulator.harness';

const team = 'hook-tour';
type Recorded = RecordedEvent & SessionEvent;
type Logged = { input: Record<string, unknown> & { session_id: string; hook_event_name: string }; env: { project: string; session: string; model: string } };

/** A command hook that appends its input and the session variables it was given to `.hooklog/events.jsonl` in the project. */
const LOG_HOOK = {
  type: 'command',
  command: `mkdir -p "$CLAUDE_PROJECT_DIR/.hooklog" && printf '{"input":%s,"env":{"project":"%s","session":"%s","model":"%s"}}\\n' "$(cat)" "$CLAUDE_PROJECT_DIR" "$CLAUDE_SESSION_ID" "$CLAUDE_MODEL" >> "$CLAUDE_PROJECT_DIR/.hooklog/events.jsonl"`,
};
const EVENTS = ['Setup', 'SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'Notification', 'PostToolUse', 'PostToolUseFailure', 'SubagentStop', 'PreCompact', 'Stop', 'SessionEnd'] as const;
const answer = (output: unknown) => ({ type: 'command', command: `cat >/dev/null; echo '${JSON.stringify(output)}'` });

const CHECKER = `---
name: checker
description: Checks that a file says what it should, e.g. "check notes.txt says hello".
tools: Read
model: haiku
maxTurns: 3
---
You check files and report.
`;

let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hs-hooklife-'));
  ({ h, supervisor, store } = await startSessionsOnSimulator({
    name: 'hooklife',
    root,
    scenarios: join(__dirname, 'scenarios'),
    // Compaction at 50% of the window, below the handoff threshold: a turn reporting 600K input tokens compacts.
    orchestratorEnv: { HS_SOURCE_ROOTS: root, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50', SESSION_HANDOFF_THRESHOLD: '0.95' },
  }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
});

afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function put(file: string, value: unknown): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** The operator's user settings (HS_AGENT_HOME/.claude/settings.json) for the next session. */
const userSettings = (value: unknown) => put(join(root, 'agents', '.claude', 'settings.json'), value);

/** A git workspace with the given files (project settings under `.claude/`). */
async function project(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(root, 'ws-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  for (const [path, value] of Object.entries(files)) await put(join(dir, path), value);
  return dir;
}

async function runSession(persona: string, situation: string, workspace: string, prompt: string) {
  const sessionId = randomUUID();
  const ended = supervisor.whenEnded(sessionId);
  await supervisor.start({ sessionId, team, persona, kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt, workspace, situation });
  const outcome = await ended;
  const events = (await store.readStream(sessionStreamId(sessionId))) as Recorded[];
  const of = <T extends SessionEvent['type']>(type: T) => events.filter((e) => e.type === type) as Array<Recorded & Extract<SessionEvent, { type: T }>>;
  return { sessionId, outcome, events, of };
}

describe('every hook event, fired by a built-in session on the simulator at its moment with its documented input', () => {
  const prompt = 'Tour the hooks: write notes.txt, read a missing file, edit the notes, have the checker look.';
  let workspace: string;
  let sessionId: string;
  let logged: Logged[];
  let outcome: Awaited<ReturnType<typeof runSession>>;

  beforeAll(async () => {
    await userSettings({});
    workspace = await project({
      '.claude/settings.json': {
        hooks: {
          ...Object.fromEntries(EVENTS.map((e) => [e, [{ hooks: [LOG_HOOK] }]])),
          PreToolUse: [{ hooks: [LOG_HOOK] }, { matcher: 'Edit', hooks: [answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'edits need a person' } })] }],
        },
      },
      '.headspace/agents/checker.md': CHECKER,
    });
    outcome = await runSession('hana', 'hook-tour', workspace, prompt);
    sessionId = outcome.sessionId;
    const lines = (await readFile(join(workspace, '.hooklog', 'events.jsonl'), 'utf8')).trim().split('\n');
    logged = lines.map((l) => JSON.parse(l) as Logged).filter((l) => l.input.session_id === sessionId);
  }, 120_000);

  const firings = (event: string) => logged.filter((l) => l.input.hook_event_name === event);

  it('the session completes, and each event fires in the order of a session’s life', () => {
    expect(outcome.of('session.ended')[0].data).toMatchObject({ exitReason: 'completed' });
    const firstSeen = [...new Set(logged.map((l) => l.input.hook_event_name))];
    expect(firstSeen.slice(0, 4)).toEqual(['Setup', 'SessionStart', 'UserPromptSubmit', 'PreToolUse']);
    expect(firstSeen.at(-1)).toBe('SessionEnd');
    expect(new Set(firstSeen)).toEqual(new Set(EVENTS));
  });

  it('every hook gets the common fields and CLAUDE_PROJECT_DIR, the session id and the model in its environment', () => {
    for (const l of logged) {
      expect(l.input).toMatchObject({ session_id: sessionId, cwd: workspace, session_type: 'headless', persona: 'hana', model: 'sonnet' });
      expect(l.env).toEqual({ project: workspace, session: sessionId, model: 'sonnet' });
    }
  });

  it('Setup: once for the workspace, trigger init, before the session starts', () => {
    expect(firings('Setup').map((l) => l.input)).toEqual([expect.objectContaining({ hook_event_name: 'Setup', trigger: 'init' })]);
  });

  it('SessionStart: source startup at the start and compact after the compaction', () => {
    expect(firings('SessionStart').map((l) => l.input.source)).toEqual(['startup', 'compact']);
  });

  it('UserPromptSubmit: the task prompt before the first turn', () => {
    expect(firings('UserPromptSubmit')[0].input).toMatchObject({ prompt });
  });

  it('PreToolUse: every tool call with its name, input and id', () => {
    const calls = firings('PreToolUse').map((l) => l.input);
    expect(calls.map((c) => c.tool_name)).toEqual(['Write', 'Bash', 'Edit', 'agent__checker']);
    expect(calls[0]).toMatchObject({ tool_input: { file_path: 'notes.txt', content: 'hello\n' }, tool_use_id: expect.stringMatching(/^toolu_/) });
  });

  it('PostToolUse: the Write with its response', () => {
    const write = firings('PostToolUse').find((l) => l.input.tool_name === 'Write')!.input;
    expect(write).toMatchObject({ tool_input: { file_path: 'notes.txt' }, tool_response: { is_error: false, files_modified: ['notes.txt'] } });
  });

  it('PostToolUseFailure: the failed Bash with its error', () => {
    expect(firings('PostToolUseFailure').map((l) => l.input)).toEqual([expect.objectContaining({ tool_name: 'Bash', tool_input: expect.objectContaining({ command: 'cat missing.txt' }), error: expect.stringContaining('missing.txt') })]);
  });

  it('PermissionRequest: the Edit a PreToolUse hook answered "ask" for, with the reason', () => {
    expect(firings('PermissionRequest').map((l) => l.input)).toEqual([expect.objectContaining({ tool_name: 'Edit', reason: 'edits need a person', tool_input: expect.objectContaining({ file_path: 'notes.txt' }) })]);
  });

  it('Notification: permission_prompt while nobody decided the Edit (refused, the file untouched)', async () => {
    expect(firings('Notification').map((l) => l.input)).toEqual([expect.objectContaining({ notification_type: 'permission_prompt', message: expect.stringContaining('permission to use Edit') })]);
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('hello\n');
  });

  it('SubagentStop: the checker agent’s end, naming the agent and its session', () => {
    expect(firings('SubagentStop').map((l) => l.input)).toEqual([expect.objectContaining({ agent_type: 'checker', subagent_id: expect.any(String), stop_hook_active: false })]);
  });

  it('PreCompact: trigger auto with the context snapshot and the transcript before the compaction', async () => {
    const [pre] = firings('PreCompact').map((l) => l.input as unknown as { transcript_path: string; context_snapshot: { turn: number } });
    expect(pre).toMatchObject({ trigger: 'auto', context_snapshot: { turn: 4 }, transcript_path: join(workspace, '.headspace', 'transcripts', `${sessionId}.jsonl`) });
    expect(await readFile(pre.transcript_path, 'utf8')).toContain('cat missing.txt');
    expect(outcome.of('session.compacted')).toHaveLength(1);
  });

  it('Stop: when the model stopped, with its last message', () => {
    expect(firings('Stop').map((l) => l.input)).toEqual([expect.objectContaining({ stop_hook_active: false, last_assistant_message: expect.stringContaining('Everything the tour needed') })]);
  });

  it('SessionEnd: once, with the session’s exit reason', () => {
    expect(firings('SessionEnd').map((l) => l.input.reason)).toEqual(['completed']);
  });
});

describe('hook settings and handlers in running sessions', () => {
  it('a project prompt hook denies a Bash call through the evaluator on the light model, paid through the governor', async () => {
    await userSettings({});
    const workspace = await project({
      '.claude/settings.json': { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Deny a Bash command that deletes files. $ARGUMENTS' }] }] } },
      'old-notes.txt': 'keep me\n',
    });
    const { sessionId, outcome, of } = await runSession('pia', 'prompt-hook', workspace, 'Tidy up the old notes.');

    expect(outcome.exitReason).toBe('completed');
    const [call] = of('session.tool-called').map((e) => e.data);
    expect(call).toMatchObject({ tool: 'Bash', isError: true, content: expect.stringContaining('deleting files is not allowed in this project') });
    expect(call.hooks).toContainEqual({ event: 'PreToolUse', decision: 'deny', reason: 'deleting files is not allowed in this project' });
    expect(await readFile(join(workspace, 'old-notes.txt'), 'utf8')).toBe('keep me\n');
    // The model read the evaluator's reason.
    expect(JSON.stringify(of('session.model-called')[1].data.content)).toContain('deleting files is not allowed');
    // The evaluation is one more governed call of the session, beside its turns.
    await h.caughtUp();
    const spend = await h.send(getSpend, { sessionId, groupBy: 'persona' });
    expect(spend.groups).toEqual([expect.objectContaining({ key: 'pia', calls: outcome.turns + 1 })]);
  });

  it('project settings override user settings, and local settings override the project’s (updated input and env)', async () => {
    const rewrite = (command: string) => answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command } } });
    await userSettings({ env: { HS_WHO: 'user', HS_PLACE: 'user' }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [rewrite('echo user > who.txt')] }] } });
    const workspace = await project({
      '.claude/settings.json': {
        env: { HS_WHO: 'project', HS_PLACE: 'project' },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [rewrite('echo project > who.txt')] }],
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cat >/dev/null; printf "%s %s" "$HS_WHO" "$HS_PLACE" > hook-env.txt' }] }],
        },
      },
      '.claude/settings.local.json': { env: { HS_PLACE: 'local' } },
    });
    try {
      const { outcome } = await runSession('uma', 'settings-precedence', workspace, 'Record who you are.');
      expect(outcome.exitReason).toBe('completed');
      expect(await readFile(join(workspace, 'who.txt'), 'utf8')).toBe('project\n');
      expect(await readFile(join(workspace, 'hook-env.txt'), 'utf8')).toBe('project local');
    } finally {
      await userSettings({});
    }
  });

  it('an async hook’s result reaches the session as a message on a later turn', async () => {
    await userSettings({});
    const workspace = await project({
      '.claude/settings.json': { hooks: { PostToolUse: [{ matcher: 'Write', hooks: [{ ...answer({ systemMessage: 'async lint: notes.txt is fine' }), async: true }] }] } },
    });
    const { outcome, of } = await runSession('asa', 'async-hook', workspace, 'Write the notes.');

    expect(outcome.exitReason).toBe('completed');
    // The Write's own result does not wait for it…
    expect(of('session.tool-called')[0].data.hooks).toEqual([{ event: 'PostToolUse', decision: 'async' }]);
    // …a later turn carries it, and the model repeats it.
    const carried = of('session.model-called').filter((e) => e.data.injectedText?.includes('async lint: notes.txt is fine'));
    expect(carried.map((e) => e.data.turn)).toHaveLength(1);
    expect(carried[0].data.turn).toBeGreaterThan(1);
    expect(JSON.stringify(carried[0].data.content)).toContain('Heard: <hook-result event=\\"PostToolUse\\" async=\\"true\\">\\nasync lint: notes.txt is fine');
  });
});

describe('compaction in a running session', () => {
  it('a session that crosses the threshold fires PreCompact (backup written), updates the session file, summarises, and finishes its task', async () => {
    await userSettings({});
    const workspace = await project({});
    const { sessionId, outcome, of } = await runSession('cora', 'compaction', workspace, 'Append the lines one and two to progress.txt.');

    expect(outcome.exitReason).toBe('completed');
    expect(await readFile(join(workspace, 'progress.txt'), 'utf8')).toBe('one\ntwo\n');

    const [compacted] = of('session.compacted').map((e) => e.data);
    expect(compacted).toMatchObject({ turn: 1, trigger: 'auto', thresholdPercent: 50, summary: expect.stringContaining('Remaining: append two'), sessionFile: '.headspace/session-state.json' });
    expect(compacted.contextTokens).toBeGreaterThanOrEqual(600_000);
    expect(compacted.preserved).toContain('Error: ENOENT: no such file or directory, open config/app.json');
    // The turn after it started from the summary: the scenario's branch for a compacted conversation ran.
    const commands = of('session.model-called').flatMap((e) => e.data.content.filter((b) => b.type === 'tool_use').map((b) => (b.input as { command: string }).command));
    expect(commands).toEqual([expect.stringContaining('echo one'), 'echo two >> progress.txt']);

    // The built-in context backup (PreCompact) wrote the snapshot and a copy of the transcript.
    const backups = await readdir(join(workspace, '.headspace', 'backups'));
    const snapshot = backups.find((f) => f.startsWith(sessionId) && f.endsWith('.json') && !f.includes('.transcript'))!;
    expect(backups).toContain(snapshot.replace(/\.json$/, '.transcript.jsonl'));
    const backup = JSON.parse(await readFile(join(workspace, '.headspace', 'backups', snapshot), 'utf8')) as { trigger: string; context: { preserved: Array<{ content: string; category: string }> } };
    expect(backup.trigger).toBe('auto');
    expect(backup.context.preserved).toContainEqual(expect.objectContaining({ category: 'PRESERVE_VERBATIM', content: expect.stringContaining('ENOENT') }));

    // The session-state file keeps the preserved items; git does not see the runtime's files.
    const state = JSON.parse(await readFile(join(workspace, '.headspace', 'session-state.json'), 'utf8')) as { items: Array<{ content: string }> };
    expect(state.items.some((i) => i.content.includes('ENOENT'))).toBe(true);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: workspace, encoding: 'utf8' })).not.toContain('.headspace');

    // The summarising call is governed and counted: one call more than the turns.
    await h.caughtUp();
    const spend = await h.send(getSpend, { sessionId, groupBy: 'persona' });
    expect(spend.groups).toEqual([expect.objectContaining({ key: 'cora', calls: outcome.turns + 1 })]);
    const [ended] = of('session.ended').map((e) => e.data);
    expect(ended.usage.outputTokens).toBeGreaterThan(of('session.model-called').reduce((sum, e) => sum + e.data.usage.outputTokens, 0));
  });
});
