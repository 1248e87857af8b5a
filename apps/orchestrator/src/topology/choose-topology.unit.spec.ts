import { describe, expect, it } from 'vitest';
import { askSignals } from '../asks/ask-signals';
import { chooseTopology } from './choose-topology';

const choose = (prompt: string) => chooseTopology(askSignals(prompt).signals);

describe('choose topology', () => {
  it('runs a small, clear change as one agent', () => {
    expect(choose('fix the typo in README.md')).toEqual({ topology: 'ask', reason: 'a small, clear change: one agent' });
  });

  it('runs a question as one agent', () => {
    expect(choose('how does the auth middleware work?').topology).toBe('ask');
  });

  it('gives wide, risky work to the agent team', () => {
    expect(choose('refactor the authentication across the whole codebase')).toEqual({ topology: 'run', reason: '5+ files and risky work: an agent team (spec, tasks, QA, review)' });
  });

  it('gives a vague request to the agent team, whose workshop makes it a spec', () => {
    expect(choose('make the app better somehow').topology).toBe('run');
  });

  it('keeps a risky change to one named file with one agent', () => {
    expect(choose('fix the race in src/queue.ts')).toEqual({ topology: 'ask', reason: 'a risky but narrow change: one agent' });
  });
});
