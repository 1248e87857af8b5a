import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createLlmClient } from '../client/client';
import { startSimulator } from './main';
import type { RunningSimulator } from './server';

const made: string[] = [];

/** A directory of scenario files, `name.yaml` → YAML text. */
function scenarioDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hs-llm-extra-dir-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const robboWorkshop = (id: string, text: string) =>
  `id: ${id}\npersona: robbo\nsituation: workshop\nsteps:\n  - text: ${JSON.stringify(text)}\n`;

async function firstText(sim: RunningSimulator, system: string): Promise<string> {
  const client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 5_000, maxRetries: 0 });
  const { message } = await client.create({ model: 'haiku', maxTokens: 500, system, messages: [{ role: 'user', content: 'An idea' }] });
  const block = message.content[0];
  return block.type === 'text' ? block.text : '';
}

let running: RunningSimulator | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await running?.close();
  running = undefined;
});
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('startSimulator with extra scenario directories', () => {
  it('answers with the extra directory’s scenario over a shipped one of equal specificity', async () => {
    const extra = scenarioDir({ 'workshop.yaml': robboWorkshop('example-workshop', 'From the example project.') });
    running = await startSimulator({ extraScenarioDirs: [extra], announce: false });
    expect(await firstText(running, '# Team Member: Robbo\n\nSituation: workshop')).toBe('[simulated] From the example project.');
    // Situations the extra directory does not script still reach the shipped scenarios.
    expect(await firstText(running, '# Team Member: Mark\n\nSituation: clean-workspace')).toMatch(/^\[simulated\] /);
  });

  it('prefers the first extra directory when two script the same persona and situation', async () => {
    const first = scenarioDir({ 'a.yaml': robboWorkshop('first-workshop', 'First directory.') });
    const second = scenarioDir({ 'b.yaml': robboWorkshop('second-workshop', 'Second directory.') });
    running = await startSimulator({ extraScenarioDirs: [first, second], announce: false });
    expect(await firstText(running, 'Persona: robbo\nSituation: workshop')).toBe('[simulated] First directory.');
  });

  it('replaces a shipped scenario that has the same id', async () => {
    const extra = scenarioDir({ 'default.yaml': 'id: default\npersona: "*"\nsituation: "*"\nsteps:\n  - text: Example default.\n' });
    running = await startSimulator({ extraScenarioDirs: [extra], announce: false });
    expect(await firstText(running, 'Persona: nobody\nSituation: nothing-scripted')).toBe('[simulated] Example default.');
  });

  it('reads the directories from HS_SIMULATOR_SCENARIOS when none are passed, and names them in its banner', async () => {
    const extra = scenarioDir({ 'workshop.yaml': robboWorkshop('env-workshop', 'From the environment.') });
    vi.stubEnv('HS_SIMULATOR_SCENARIOS', `${extra}${delimiter} `);
    const lines: string[] = [];
    running = await startSimulator({ log: (line) => lines.push(line) });
    expect(await firstText(running, 'Persona: robbo\nSituation: workshop')).toBe('[simulated] From the environment.');
    expect(lines[0]).toContain(extra);
  });

  it('refuses to start when an extra directory does not exist, rather than silently playing the shipped script', async () => {
    const missing = join(tmpdir(), 'hs-llm-extra-dir-never-created');
    await expect(startSimulator({ extraScenarioDirs: [missing], announce: false })).rejects.toThrow(/ENOENT|no such file/);
  });
});
