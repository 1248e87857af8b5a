import { describe, expect, it } from 'vitest';
import { CliError } from '../exit-codes';
import { createWebhookBody } from './webhook-commands';

describe('headspace webhooks create', () => {
  it('builds the request from the options, the secret read from the named environment variable', () => {
    expect(createWebhookBody('https://hooks.example/x', { event: ['task.*', 'team.created'], team: ['alpha'], secretEnv: 'HOOK_SECRET' }, { HOOK_SECRET: 's3cret-s3cret-s3cret' })).toEqual({
      url: 'https://hooks.example/x',
      eventTypes: ['task.*', 'team.created'],
      teams: ['alpha'],
      secret: 's3cret-s3cret-s3cret',
    });
  });

  it('refuses a missing --event and an unset secret variable as usage errors', () => {
    expect(() => createWebhookBody('https://hooks.example/x', { event: [] }, {})).toThrow(CliError);
    expect(() => createWebhookBody('https://hooks.example/x', { event: ['*'], secretEnv: 'NOPE' }, {})).toThrow(/NOPE is not set/);
  });
});
