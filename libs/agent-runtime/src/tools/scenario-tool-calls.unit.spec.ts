import { join, resolve } from 'node:path';
import { defaultScenariosDir, loadScenarioDirs, type Scenario } from '@headspace/llm';
import { describe, expect, it } from 'vitest';
import { workspaceTools } from './index';
import { createTeamTools } from './team-tools';
import { FakeTeamPort } from './testing/fake-team-port';
import type { AnyToolDefinition } from './types';

const repo = resolve(__dirname, '../../../..');
const scenarioDirs = [defaultScenariosDir(), join(repo, 'examples', 'scenarios', 'word-stats')];
const tools = new Map<string, AnyToolDefinition>([...workspaceTools, ...createTeamTools(new FakeTeamPort([]))].map((t) => [t.name, t]));

/** Every scripted tool call of a scenario: steps, their branches, interrupts and the reply once the steps run out. */
function toolCalls(scenario: Scenario): Array<{ where: string; name: string; input: unknown }> {
  const replies = [
    ...scenario.steps.flatMap((step, i) => [{ where: `step ${i + 1}`, reply: step }, ...(step.when ?? []).map((b, k) => ({ where: `step ${i + 1} branch ${k + 1}`, reply: b }))]),
    ...(scenario.interrupts ?? []).map((b, k) => ({ where: `interrupt ${k + 1}`, reply: b })),
    ...(scenario.exhausted ? [{ where: 'exhausted', reply: scenario.exhausted }] : []),
  ];
  return replies.flatMap(({ where, reply }) => (reply.tool_use ?? []).map((call) => ({ where: `${scenario.id} ${where}`, name: call.name, input: call.input })));
}

describe('scripted tool calls', () => {
  it('every tool call of the shipped and example scenarios names a runtime tool and is valid input for it', () => {
    const calls = loadScenarioDirs(scenarioDirs).flatMap(toolCalls);
    expect(calls.length).toBeGreaterThan(30);
    const problems = calls.flatMap(({ where, name, input }) => {
      const tool = tools.get(name);
      if (!tool) return [`${where}: no tool named ${name}`];
      const parsed = tool.schema.safeParse(input);
      return parsed.success ? [] : [`${where}: ${name} ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`];
    });
    expect(problems).toEqual([]);
  });
});
