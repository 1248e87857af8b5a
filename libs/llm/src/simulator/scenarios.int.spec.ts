import type Anthropic from '@anthropic-ai/sdk';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLlmClient, type LlmClient } from '../client/client';
import { extractJsonObject } from '../text';
import { startSimulator } from './main';
import type { RunningSimulator } from './server';

/** Seed 001's reflection schema, as zod, to check the scripted reflections. */
const reflectionSchema = z.object({
  task_result: z.object({
    status: z.enum(['completed', 'partial', 'blocked', 'failed']),
    summary: z.string(),
    files_changed: z.array(z.string()),
  }),
  reflection: z.object({ what_worked: z.string(), what_didnt: z.string(), confidence: z.enum(['high', 'medium', 'low']) }),
  suggested_learnings: z.array(
    z.object({
      category: z.enum(['codebase-pattern', 'gotcha', 'preference', 'cross-agent']),
      content: z.string(),
      for_agent: z.string().optional(),
    }),
  ),
  follow_up: z.object({ blocked_by: z.string().optional(), suggested_next: z.string().optional(), needs_human: z.boolean() }),
});

interface ToolOutcome {
  content: string;
  is_error?: boolean;
}
type Executor = (name: string, input: Record<string, unknown>) => ToolOutcome;

interface Turn {
  message: Anthropic.Message;
  toolCalls: Array<{ name: string; input: Record<string, unknown>; outcome: ToolOutcome }>;
}

/** A minimal agent loop: call, run the tool calls, feed results back, until end_turn. */
async function play(
  client: LlmClient,
  opts: {
    system: string;
    first: string;
    execute: Executor;
    /** Extra user text to add after a turn (e.g. a handoff request or a teammate's reply). */
    followUp?: (turn: Turn, index: number) => string | undefined;
    maxTurns?: number;
  },
): Promise<Turn[]> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: opts.first }];
  const turns: Turn[] = [];
  for (let i = 0; i < (opts.maxTurns ?? 12); i++) {
    const { message } = await client.stream({ model: 'sonnet', maxTokens: 8_000, system: opts.system, messages });
    const turn: Turn = { message, toolCalls: [] };
    turns.push(turn);
    messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
    const results: Anthropic.ContentBlockParam[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const input = block.input as Record<string, unknown>;
      const outcome = opts.execute(block.name, input);
      turn.toolCalls.push({ name: block.name, input, outcome });
      results.push({ type: 'tool_result', tool_use_id: block.id, content: outcome.content, is_error: outcome.is_error });
    }
    const extra = opts.followUp?.(turn, i);
    if (extra) results.push({ type: 'text', text: extra });
    if (results.length === 0) break;
    messages.push({ role: 'user', content: results });
  }
  return turns;
}

const textOf = (m: Anthropic.Message) =>
  m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

const fakeExecutor: Executor = (name) => ({ content: `${name} ok` });

let sim: RunningSimulator;
let client: LlmClient;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, announce: false, retryAfterMs: 5 });
  client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 10_000, maxRetries: 2 });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => sim.handler.reset());

describe('shipped scenarios played through the SDK', () => {
  it('(a)+(d) Con writes a test and code, sees the test really fail, fixes it with Edit, passes, and reflects', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'hs-con-'));
    const execute: Executor = (name, input) => {
      const path = join(workspace, String(input.file_path ?? ''));
      if (name === 'Write') {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, String(input.content));
        return { content: `Wrote ${String(input.file_path)}` };
      }
      if (name === 'Edit') {
        const before = readFileSync(path, 'utf8');
        if (!before.includes(String(input.old_string))) return { content: 'old_string not found', is_error: true };
        writeFileSync(path, before.replace(String(input.old_string), String(input.new_string)));
        return { content: `Edited ${String(input.file_path)}` };
      }
      if (name === 'Bash') {
        expect(input.command).toBe('node --test test/slugify.test.mjs');
        try {
          const out = execFileSync(process.execPath, ['--test', 'test/slugify.test.mjs'], {
            cwd: workspace,
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          return { content: `${out}\nexit code 0` };
        } catch (e) {
          const err = e as { stdout?: string; status?: number };
          return { content: `${err.stdout ?? ''}\nexit code ${err.status ?? 1}`, is_error: true };
        }
      }
      throw new Error(`unexpected tool ${name}`);
    };
    const turns = await play(client, {
      system: '# Team Member: Con\nBackend specialist.\nSituation: implement-task',
      first: 'Add a slugify helper with tests.',
      execute,
    });
    const calls = turns.flatMap((t) => t.toolCalls);
    expect(calls.map((c) => c.name)).toEqual(['Write', 'Write', 'Bash', 'Edit', 'Bash']);
    expect(calls[2].outcome.content).toMatch(/AssertionError/);
    expect(calls[2].outcome.is_error).toBe(true);
    expect(calls[4].outcome.content).toMatch(/(#|ℹ) fail 0/);
    expect(calls[4].outcome.is_error).toBeUndefined();
    const last = turns.at(-1)!.message;
    expect(last.stop_reason).toBe('end_turn');
    expect(textOf(last).startsWith('[simulated]')).toBe(true);
    const reflection = reflectionSchema.parse(extractJsonObject(textOf(last)));
    expect(reflection.task_result.status).toBe('completed');
    expect(reflection.task_result.files_changed).toEqual(['src/slugify.mjs', 'test/slugify.test.mjs']);
  });

  it('(b) Mark reacts to a hook denying rm -rf / by quoting the reason and scoping the command', async () => {
    const reason = 'Blocked by PreToolUse hook security-guard: rm -rf / is a destructive command';
    const turns = await play(client, {
      system: 'Persona: mark\nSituation: clean-workspace',
      first: 'Clean the workspace.',
      execute: (name, input) =>
        name === 'Bash' && input.command === 'rm -rf /' ? { content: reason, is_error: true } : { content: 'done' },
    });
    const commands = turns.flatMap((t) => t.toolCalls.map((c) => c.input.command));
    expect(commands).toEqual(['rm -rf /', 'rm -rf ./dist']);
    expect(textOf(turns[1].message)).toContain(reason);
    expect(turns.at(-1)!.message.stop_reason).toBe('end_turn');
  });

  it('(c) May’s context fills past 80% and she answers the handoff request with a §6.3 handoff document', async () => {
    const window = 200_000;
    const turns = await play(client, {
      system: 'Persona: may\nSituation: long-migration',
      first: 'Split the users migration into safe steps.',
      execute: fakeExecutor,
      followUp: (turn) =>
        turn.message.stop_reason === 'tool_use' && turn.message.usage.input_tokens / window >= 0.8
          ? 'Your context window is 84% full. Write your handoff document now.'
          : undefined,
    });
    const inputs = turns.map((t) => t.message.usage.input_tokens);
    expect(inputs.slice(0, 4)).toEqual([48_000, 96_000, 142_000, 168_000]);
    expect(turns).toHaveLength(5);
    const handoff = textOf(turns[4].message);
    const doc = handoff.slice(handoff.indexOf('# Handoff:'));
    expect(doc.split('\n')[0]).toMatch(/^# Handoff: May — Session \S+$/);
    for (const section of ['## Task', '## Status', '## What Was Done', '## What Remains', '## Blockers / Notes', '## Files Modified', '## Suggested Next Steps']) {
      expect(doc).toContain(section);
    }
    expect(turns[4].message.stop_reason).toBe('end_turn');
  });

  it('(e) Al asks Con with send_message and builds on the teammate’s answer', async () => {
    const turns = await play(client, {
      system: 'Persona: al\nSituation: ask-teammate',
      first: 'Bind the display name in ProfileForm.',
      execute: (name) => ({ content: name === 'send_message' ? 'Message delivered to con' : 'ok' }),
      followUp: (turn) =>
        turn.toolCalls.some((c) => c.name === 'send_message')
          ? '<teammate-message from="con">It is `display_name`.</teammate-message>'
          : undefined,
    });
    const calls = turns.flatMap((t) => t.toolCalls);
    expect(calls.map((c) => c.name)).toEqual(['Read', 'send_message', 'Edit']);
    expect(calls[1].input).toMatchObject({ to: 'con' });
    expect(calls[2].input).toMatchObject({ new_string: 'value={profile.display_name}' });
  });

  it('(f) Robbo workshops over three operator turns, uses no tools and ends with a spec', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'I want a page showing what agents are doing.' }];
    const replies: Anthropic.Message[] = [];
    for (const answer of ['Operator first, one screen.', 'SSE is fine.']) {
      const { message } = await client.create({ model: 'opus', maxTokens: 4_000, system: 'Persona: robbo\nSituation: workshop', messages });
      replies.push(message);
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] }, { role: 'user', content: answer });
    }
    const { message: spec } = await client.create({ model: 'opus', maxTokens: 4_000, system: 'Persona: robbo\nSituation: workshop', messages });
    expect([...replies, spec].every((m) => m.content.every((b) => b.type !== 'tool_use'))).toBe(true);
    expect(textOf(replies[0])).toContain('three questions');
    expect(textOf(spec)).toMatch(/# Spec: Run progress page[\s\S]*## Acceptance criteria/);
  });

  it('(g) Gavin decomposes the spec with one create_tasks call of four dependent tasks', async () => {
    const turns = await play(client, {
      system: 'Persona: gavin\nSituation: decompose-spec',
      first: 'Decompose the run progress spec.',
      execute: () => ({ content: 'Created 4 tasks' }),
    });
    const call = turns[0].toolCalls[0];
    expect(call.name).toBe('create_tasks');
    const tasks = call.input.tasks as Array<{ key: string; dependencies?: string[]; pool: string }>;
    expect(tasks.map((t) => t.key)).toEqual(['progress-events', 'progress-sse', 'progress-page', 'progress-qa']);
    expect(tasks[3].dependencies).toEqual(['progress-page']);
    expect(turns).toHaveLength(2);
  });

  it('Verner’s scripted overload is absorbed by the client’s retries; a failing run goes to the builder', async () => {
    const turns = await play(client, {
      system: 'Persona: verner\nSituation: qa',
      first: 'Verify task 12.',
      execute: (name) => (name === 'Bash' ? { content: 'not ok 1 - login\n# fail 1\nexit code 1', is_error: true } : { content: 'sent' }),
    });
    const calls = turns.flatMap((t) => t.toolCalls);
    expect(calls.map((c) => c.name)).toEqual(['Bash', 'send_message']);
    expect(String(calls[1].input.body)).toContain('not ok 1 - login');
  });
});
