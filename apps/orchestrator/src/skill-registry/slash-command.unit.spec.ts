import { describe, expect, it } from 'vitest';
import { askSlashCommandOf, slashCommandOf } from './slash-command';

describe('slash commands', () => {
  it.each([
    ['/release-notes v1.2', { skill: 'release-notes', args: 'v1.2' }],
    ['/tidy', { skill: 'tidy', args: '' }],
    ['  /kit:lint-fix src/a.ts\nand b  ', { skill: 'kit:lint-fix', args: 'src/a.ts\nand b' }],
  ])('reads %j', (prompt, expected) => expect(slashCommandOf(prompt)).toEqual(expected));

  it.each(['fix the typo in README.md', 'use /tidy please', '/Upper', '/'])('%j is not one', (prompt) => expect(slashCommandOf(prompt)).toBeUndefined());

  it('finds the command on the Request line of an ask session’s prompt only', () => {
    expect(askSlashCommandOf('Request: /tidy now\n\nYou work alone…')).toEqual({ skill: 'tidy', args: 'now' });
    expect(askSlashCommandOf('Request: tidy\n\n/tidy')).toBeUndefined();
  });
});
