import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTools } from '@headspace/agent-runtime';
import { describe, expect, it } from 'vitest';
import type { BudgetPort, ModelCall, ModelPort } from '../run-session/session-ports';
import { LlmHookEvaluator, parseVerdict } from './hook-evaluator.adapter';

describe('the hook evaluator’s answer', () => {
  it('is the last {"ok": …} object of the reply, with its reason', () => {
    expect(parseVerdict('[simulated] {"ok": false, "reason": "deletes files"}')).toEqual({ ok: false, reason: 'deletes files' });
    expect(parseVerdict('Looked at it.\n```json\n{"ok": true}\n```')).toEqual({ ok: true });
  });

  it('is an error when the model answered anything else (the hook fails open, reported)', () => {
    expect(() => parseVerdict('Sure, looks fine to me.')).toThrow(/did not answer/);
    expect(() => parseVerdict('{"ok": "yes"}')).toThrow(/did not answer/);
  });
});

describe('LlmHookEvaluator', () => {
  const usage = { inputTokens: 10, outputTokens: 5, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
  const governed = () => {
    const calls: string[] = [];
    const budget: BudgetPort = {
      maySpend: async (r) => (calls.push(`may-spend ${r.key} ${r.model}`), { decision: 'allowed', model: 'claude-haiku-4-5', reservationId: `res-${r.key}` }),
      recordUsage: async (r) => void calls.push(`usage ${r.key} ${r.reservationId}`),
      release: async (r) => void calls.push(`release ${r.key}`),
    };
    return { calls, budget };
  };

  it('a prompt hook is one governed call on the light model with the evaluator’s system lines', async () => {
    const { calls, budget } = governed();
    const requests: ModelCall[] = [];
    const model: ModelPort = {
      contextWindow: () => 200_000,
      call: async (r) => (requests.push(r), { model: r.model, stopReason: 'end_turn', usage, content: [{ type: 'text', text: '{"ok": false, "reason": "no"}' }] }),
    };
    const verdict = await new LlmHookEvaluator(model, budget, 'haiku').evaluate({ prompt: 'Is it safe?', event: 'PreToolUse', signal: new AbortController().signal });
    expect(verdict).toEqual({ ok: false, reason: 'no' });
    expect(String(requests[0].system[0].text)).toMatch(/^Persona: hook-evaluator\nSituation: prompt-hook$/m);
    expect(requests[0]).toMatchObject({ model: 'claude-haiku-4-5', tools: [], effort: 'quick' });
    expect(calls).toEqual([expect.stringMatching(/^may-spend hook:[0-9a-f-]+:1 haiku$/), expect.stringMatching(/^usage hook:[0-9a-f-]+:1 res-hook:/)]);
  });

  it('an agent hook reads the workspace with its read-only tools before it answers', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hs-agent-hook-'));
    try {
      await writeFile(join(root, 'RESULTS.txt'), 'FAILED: 2 tests\n');
      const { calls, budget } = governed();
      const model: ModelPort = {
        contextWindow: () => 200_000,
        call: async (r) => {
          const last = r.messages.at(-1)!.content[0];
          if (last.type !== 'tool_result') return { model: r.model, stopReason: 'tool_use', usage, content: [{ type: 'tool_use', id: 'tu-1', name: 'Read', input: { file_path: 'RESULTS.txt' } }] };
          return { model: r.model, stopReason: 'end_turn', usage, content: [{ type: 'text', text: String(last.content).includes('FAILED') ? '{"ok": false, "reason": "tests fail"}' : '{"ok": true}' }] };
        },
      };
      const tools = fileTools.filter((t) => t.readOnly);
      const verdict = await new LlmHookEvaluator(model, budget, 'haiku').evaluate({ prompt: 'Do the tests pass?', event: 'Stop', cwd: root, tools, signal: new AbortController().signal });
      expect(verdict).toEqual({ ok: false, reason: 'tests fail' });
      expect(calls.filter((c) => c.startsWith('may-spend'))).toHaveLength(2);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
