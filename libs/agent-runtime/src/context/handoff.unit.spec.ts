import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadspaceError, type HandoffArtefact } from '@headspace/contracts';
import { ContextWindow } from './context-window';
import { buildHandoff, composeResumePrompt, handoffPath, parseHandoffMarkdown, readHandoffFile, renderHandoffMarkdown, validateHandoff, writeHandoffFile } from './handoff';

const TRICKY_VERBATIM = [
  "TypeError: Cannot read properties of undefined (reading 'id')\n    at claim (/srv/app/src/tasks/claim.ts:42:17)\n    at async run (/srv/app/src/main.ts:9:3)\n",
  'Error: fence test ```` and ``` inside\n```\n## What Remains\n### PRESERVE_VERBATIM fake x\n````',
  'error TS2345: Argument of type "a" is not assignable\r\n\tat line 3 — ünïcødé ✓ 🚀  \n\n',
  'FAIL src/a.spec.ts > claims > rejects\n  Expected: 409\n  Received: 500\n\n 1 failed | 12 passed',
];

function contextAtThreshold(): ContextWindow {
  const w = new ContextWindow({ windowTokens: 1_200, env: {} });
  w.beginTurn();
  w.add({ source: 'user', content: 'The claim endpoint must return 409 when the task is already claimed.' });
  for (const c of TRICKY_VERBATIM) {
    w.beginTurn();
    w.add({ source: 'tool_result', content: c });
  }
  w.add({ source: 'assistant', content: 'Decision: claims are decided against the task stream, not the projection' });
  w.add({ source: 'assistant', content: 'Let me think about whether a retry helps, because the lease might be stale. '.repeat(40) });
  w.add({ source: 'tool_result', toolName: 'Grep', content: 'src/a.ts:1:claim\nsrc/b.ts:2:claim\nsrc/c.ts:3:claim\n'.repeat(20) });
  return w;
}

const baseInput = {
  persona: 'Con',
  sessionAt: '2026-02-15T14:30:00.000Z',
  task: 'Implement task claims with leases',
  status: 'In progress',
  percentComplete: 70,
  whatWasDone: ['Created the claim decider', 'Wrote the lease expiry test'],
  whatRemains: ['Fix the 500 on double claim'],
  blockersNotes: ['Lease clock skew needs a decision from Robbo'],
  filesModified: [
    { path: 'src/tasks/claim.ts', change: 'new' as const },
    { path: 'src/main.ts', change: 'modified' as const },
  ],
  suggestedNextSteps: ['Reproduce the double-claim failure', 'Map the conflict to 409'],
};

describe('handoff at the context threshold', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hs-handoff-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('triages, builds, validates, writes and resumes with verbatim items byte-identical', async () => {
    const w = contextAtThreshold();
    expect(w.shouldHandoff()).toBe(true);
    expect(w.health().freePercent).toBeLessThanOrEqual(20);

    const handoff = buildHandoff({ ...baseInput, context: w });
    const verbatim = handoff.preserved.filter((p) => p.category === 'PRESERVE_VERBATIM');
    expect(verbatim.map((p) => p.content)).toEqual(['The claim endpoint must return 409 when the task is already claimed.', ...TRICKY_VERBATIM]);
    expect(handoff.preserved.filter((p) => p.category === 'PRESERVE_STRUCTURED').map((p) => p.kind)).toEqual(['decision-record']);
    // compressible and ephemeral items do not travel
    expect(handoff.preserved.some((p) => p.content.includes('Let me think'))).toBe(false);
    expect(handoff.preserved.some((p) => p.content.includes('src/a.ts:1:claim'))).toBe(false);

    const path = handoffPath(dir, 'raglue', 'con', handoff.sessionAt);
    expect(path).toBe(join(dir, 'handoffs', 'raglue', 'con-2026-02-15T14-30-00-000Z.md'));
    await writeHandoffFile(path, handoff);
    const markdown = await readFile(path, 'utf8');
    expect(markdown.startsWith('# Handoff: Con — Session 2026-02-15T14:30:00.000Z\n\n## Task\nImplement task claims with leases\n\n## Status\nIn progress — 70% complete\n')).toBe(true);
    expect(markdown).toContain('## Files Modified\n- src/tasks/claim.ts (new)\n- src/main.ts (modified)\n');
    expect(markdown).toContain('## Suggested Next Steps\n1. Reproduce the double-claim failure\n2. Map the conflict to 409\n');

    const parsed = await readHandoffFile(path);
    expect(parsed).toEqual(handoff);
    for (const [i, item] of verbatim.entries()) {
      expect(Buffer.from(parsed.preserved[i].content, 'utf8').equals(Buffer.from(item.content, 'utf8'))).toBe(true);
    }

    const resume = composeResumePrompt({
      identity: { name: 'Con', description: 'Backend systems specialist.' },
      skillFile: '# Con — Skill Profile\n\n## Core Competencies\n- Event sourcing',
      handoff: parsed,
    });
    for (const item of verbatim) expect(resume.user.includes(item.content)).toBe(true);
    expect(resume.blocks.map((b) => b.layer)).toEqual(['identity', 'skill', 'reflection-protocol', 'handoff', 'task']);
    expect(resume.user).toContain('Continue "Implement task claims with leases"');
    // the resumed prompt re-parses to the same artefact: nothing lost in the prompt either
    const embedded = resume.blocks.find((b) => b.layer === 'handoff')?.text.replace('## Handoff From Your Previous Session\n', '') ?? '';
    expect(parseHandoffMarkdown(embedded)).toEqual(handoff);
  });

  it('round-trips an artefact with empty lists and no percentage', () => {
    const h = validateHandoff({ ...baseInput, percentComplete: undefined, whatWasDone: [], blockersNotes: [], filesModified: [] });
    expect(parseHandoffMarkdown(renderHandoffMarkdown(h))).toEqual(h);
  });
});

describe('invalid handoffs', () => {
  const fieldOf = (fn: () => unknown): string | undefined => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(HeadspaceError);
      expect((err as HeadspaceError).code).toBe('HANDOFF.INVALID');
      return (err as HeadspaceError).field;
    }
    throw new Error('expected a HANDOFF.INVALID error');
  };

  it('rejects a missing field naming it', () => {
    const { suggestedNextSteps: _drop, ...rest } = baseInput;
    expect(fieldOf(() => validateHandoff({ ...rest, sessionAt: baseInput.sessionAt }))).toBe('suggestedNextSteps');
  });

  it('rejects a multi-line list item naming its index', () => {
    expect(fieldOf(() => validateHandoff({ ...baseInput, whatWasDone: ['ok', 'two\nlines'] }))).toBe('whatWasDone.1');
  });

  it('rejects a bad file change kind and a bad timestamp', () => {
    expect(fieldOf(() => validateHandoff({ ...baseInput, filesModified: [{ path: 'a.ts', change: 'renamed' }] }))).toBe('filesModified.0.change');
    expect(fieldOf(() => validateHandoff({ ...baseInput, sessionAt: 'yesterday' }))).toBe('sessionAt');
  });

  it('rejects markdown without the handoff title', () => {
    expect(fieldOf(() => parseHandoffMarkdown('# Notes\n\n## Task\nx'))).toBe('(title)');
  });

  it('rejects markdown whose preserved block is not closed', () => {
    const md = renderHandoffMarkdown(validateHandoff({ ...baseInput, preserved: [{ id: 'e1', category: 'PRESERVE_VERBATIM', kind: 'error-message', content: 'Error: x' }] } as HandoffArtefact));
    expect(fieldOf(() => parseHandoffMarkdown(md.replace(/```\n\n?$/, '')))).toBe('preserved.e1');
  });
});
