import { describe, expect, it } from 'vitest';
import { askSignals } from './ask-signals';

describe('askSignals', () => {
  it('reads a one-file fix as a small, unambiguous change', () => {
    const { signals, reasons } = askSignals('fix the typo in README.md');
    expect(signals).toEqual({ isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' });
    expect(reasons).toEqual(['names 1 file: README.md']);
  });

  it('reads a refactor of auth across several named files as risky multi-file work', () => {
    const { signals, reasons } = askSignals('Refactor the auth token checks across src/auth/token.ts, src/auth/session.ts and src/api/routes.ts for security');
    expect(signals).toMatchObject({ filesAffected: 3, requiresReasoning: true, isExploration: false });
    expect(reasons).toContain('names 3 files: src/auth/token.ts, src/auth/session.ts, src/api/routes.ts');
    expect(reasons.find((r) => r.startsWith('risky work'))).toBe('risky work: refactor, auth, security');
  });

  it('counts a wide request that names fewer files as several files', () => {
    const { signals, reasons } = askSignals('rename the logger everywhere in the codebase');
    expect(signals.filesAffected).toBe(5);
    expect(reasons).toContain('"everywhere": several files');
  });

  it('reads a question without an edit verb as exploration', () => {
    expect(askSignals('Where is the retry policy configured?').signals.isExploration).toBe(true);
    expect(askSignals('How do I fix the failing test in test/a.test.mjs?').signals.isExploration).toBe(false);
  });

  it('counts only named files the workspace holds when it is listed', () => {
    const { signals } = askSignals('update docs/guide.md and notes.txt', { workspaceFiles: ['docs/guide.md', 'README.md'] });
    expect(signals.filesAffected).toBe(1);
  });

  it('does not count version numbers as files', () => {
    expect(askSignals('bump zod to 4.1.12 in package.json').signals.filesAffected).toBe(1);
  });

  it('treats a vague change naming nothing as highly ambiguous, which asks for reasoning', () => {
    const { signals } = askSignals('improve the code somehow');
    expect(signals).toMatchObject({ ambiguity: 'high', requiresReasoning: true });
  });
});
