import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findClaudeCli, simulatedClaudeEnv } from '@headspace/testing';
import { SIMULATED_LABEL } from './engine';
import { startSimulator } from './main';
import type { RunningSimulator } from './server';

const SCENARIO = `
id: cli-word-count
persona: "*"
situation: cli-check
prompt: "^Count the words"
steps:
  - thinking: Counting the words of the sentence.
    text: The sentence has three words.
    structured: { count: 3, verdict: pass }
`;

const SCHEMA = {
  type: 'object',
  properties: { count: { type: 'integer' }, verdict: { enum: ['pass', 'fail'] } },
  required: ['count', 'verdict'],
};

interface CliEvent {
  type: string;
  subtype?: string;
  is_error?: boolean;
  structured_output?: unknown;
  usage?: Record<string, unknown>;
  result?: string;
  message?: { content?: Array<{ type: string; text?: string; thinking?: string; name?: string }> };
}

let sim: RunningSimulator;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-cli-scen-'));
  writeFileSync(join(dir, 'default.yaml'), 'id: default\npersona: "*"\nsituation: "*"\nsteps:\n  - text: Default answer.\n');
  writeFileSync(join(dir, 'cli-word-count.yaml'), SCENARIO);
  sim = await startSimulator({ port: 0, scenariosDir: dir, announce: false, latency: undefined });
});
afterAll(async () => {
  await sim.close();
});

function runClaude(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const binary = findClaudeCli();
  if (binary === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
  const home = mkdtempSync(join(tmpdir(), 'hs-claude-home-'));
  return new Promise((resolve) => {
    const child = execFile(
      binary,
      args,
      {
        cwd: home,
        timeout: 150_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { PATH: process.env.PATH, ...simulatedClaudeEnv(home, sim.url), ...extraEnv },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe('the real Claude Code CLI against the simulator', () => {
  it('completes a --json-schema run with the scripted structured output, usage and labelled text', async () => {
    const run = await runClaude(
      [
        '-p',
        'Count the words in "one two three".',
        '--model',
        'sonnet',
        '--output-format',
        'stream-json',
        '--verbose',
        '--json-schema',
        JSON.stringify(SCHEMA),
        '--allowedTools',
        'Read',
      ],
      { ANTHROPIC_CUSTOM_HEADERS: 'X-Headspace-Situation: cli-check' },
    );
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as CliEvent);
    const result = events.find((e) => e.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', is_error: false, structured_output: { count: 3, verdict: 'pass' } });
    expect(result?.usage).toMatchObject({ output_tokens: expect.any(Number), cache_read_input_tokens: expect.any(Number) });
    expect(Number(result?.usage?.output_tokens)).toBeGreaterThan(0);

    const seen = events
      .filter((e) => e.type === 'assistant')
      .flatMap((e) => e.message?.content ?? [])
      .flatMap((b) => (b.type === 'text' ? [b.text ?? ''] : b.type === 'thinking' && b.thinking ? [b.thinking] : []));
    expect(seen.length).toBeGreaterThan(0);
    for (const text of seen) expect(text.startsWith(SIMULATED_LABEL)).toBe(true);
    expect(seen).toContain(`${SIMULATED_LABEL} The sentence has three words.`);
  }, 180_000);
});
