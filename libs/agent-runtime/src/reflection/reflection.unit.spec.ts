import { describe, expect, it } from 'vitest';
import { composePrompt, REFLECTION_PROTOCOL } from './prompt';
import { evaluateReflection, parseReflection } from './parse-reflection';
import { validReflection } from './reflection.fixture';


describe('parseReflection', () => {
  it('reads a bare JSON reflection', () => {
    const r = parseReflection(JSON.stringify(validReflection));
    expect(r.ok && r.reflection.task_result.status).toBe('completed');
  });

  it('extracts the JSON from prose and a fenced block, preferring the last one', () => {
    const text = `Done! Earlier draft: {"not": "it"}\n\nHere is my reflection:\n\`\`\`json\n${JSON.stringify(validReflection, null, 2)}\n\`\`\`\nThanks.`;
    const r = parseReflection(text);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.reflection.suggested_learnings).toHaveLength(2);
  });

  it('finds a balanced object with braces inside strings', () => {
    const withBraces = { ...validReflection, reflection: { ...validReflection.reflection, what_worked: 'used {curly} "quotes" \\ fine' } };
    const r = parseReflection(`final answer ${JSON.stringify(withBraces)} end`);
    expect(r.ok && r.reflection.reflection.what_worked).toBe('used {curly} "quotes" \\ fine');
  });

  it('tells no JSON, broken JSON and a schema mismatch apart, naming the field', () => {
    expect(parseReflection('I finished the task.')).toMatchObject({ ok: false, reason: 'no-json' });
    expect(parseReflection('{"task_result": {')).toMatchObject({ ok: false, reason: 'invalid-json' });
    const bad = { ...validReflection, reflection: { ...validReflection.reflection, confidence: 'very' } };
    const r = parseReflection(JSON.stringify(bad));
    expect(r).toMatchObject({ ok: false, reason: 'schema' });
    if (!r.ok) expect(r.issues[0].field).toBe('reflection.confidence');
  });

  it('requires for_agent on a cross-agent learning', () => {
    const bad = { ...validReflection, suggested_learnings: [{ category: 'cross-agent', content: 'x' }] };
    const r = parseReflection(JSON.stringify(bad));
    expect(!r.ok && r.issues[0].field).toBe('suggested_learnings.0.for_agent');
  });
});

describe('malformed reflection handling', () => {
  it('asks again after the first malformed answer, then records the second as malformed', () => {
    const first = evaluateReflection('All done, everything works.', 1);
    expect(first.action).toBe('ask-again');
    if (first.action === 'ask-again') expect(first.prompt).toContain('JSON object matching the reflection schema');
    const second = evaluateReflection('{"task_result": {"status": "done"}}', 2);
    expect(second.action).toBe('record-malformed');
    if (second.action === 'record-malformed') {
      expect(second.raw).toBe('{"task_result": {"status": "done"}}');
      expect(second.issues.map((i) => i.field)).toContain('task_result.status');
    }
  });

  it('accepts a corrected reflection on the second attempt', () => {
    expect(evaluateReflection(JSON.stringify(validReflection), 2)).toMatchObject({ action: 'accept', attempt: 2 });
  });
});

describe('prompt composition', () => {
  it('orders identity, role, owned paths, skill file, learnings, reflection protocol, then the task', () => {
    const p = composePrompt({
      identity: { name: 'Con', description: 'Backend systems specialist.' },
      role: 'Server logic',
      owns: ['src/domain/**', 'tests/**'],
      skillFile: '# Con — Skill Profile',
      learnings: '# Learnings: con',
      handoff: '# Handoff: Con — Session 2026-02-15T14:30:00.000Z',
      task: 'Add leases',
      mail: '<teammate-message from="al">hi</teammate-message>',
    });
    expect(p.blocks.map((b) => b.layer)).toEqual(['identity', 'role', 'owns', 'skill', 'learnings', 'reflection-protocol', 'handoff', 'task', 'mail']);
    expect(p.blocks.filter((b) => b.stable).map((b) => b.layer)).toEqual(['identity', 'role', 'owns', 'skill', 'learnings', 'reflection-protocol']);
    expect(p.cacheBreakpointIndex).toBe(5);
    expect(p.system).toBe(
      ['# Team Member: Con\nBackend systems specialist.', 'Role: Server logic', 'Owns: src/domain/**, tests/**', '## Your Skill File\n# Con — Skill Profile', '## Your Accumulated Learnings\n# Learnings: con', REFLECTION_PROTOCOL].join('\n\n'),
    );
    expect(p.user.indexOf('# Handoff')).toBeLessThan(p.user.indexOf('## Task\nAdd leases'));
  });

  it('leaves out empty layers and the protocol when asked', () => {
    const p = composePrompt({ identity: { name: 'Al' }, task: 'x', reflectionProtocol: false });
    expect(p.blocks.map((b) => b.layer)).toEqual(['identity', 'task']);
    expect(p.cacheBreakpointIndex).toBe(0);
  });
});
