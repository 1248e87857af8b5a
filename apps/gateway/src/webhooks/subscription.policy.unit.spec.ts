import { describe, expect, it } from 'vitest';
import { isKnownEventPattern } from './known-event-types';
import { createWebhookRequestSchema, subscriptionMatches } from './subscription.policy';

const valid = { url: 'https://hooks.example/headspace', eventTypes: ['task.*'] };
const firstIssuePath = (input: unknown) => {
  const result = createWebhookRequestSchema.safeParse(input);
  return result.success ? undefined : result.error.issues[0]?.path.join('.');
};

describe('webhook subscription policy', () => {
  it('knows the contracts event types and their categories', () => {
    expect(isKnownEventPattern('task.claimed')).toBe(true);
    expect(isKnownEventPattern('task.*')).toBe(true);
    expect(isKnownEventPattern('*')).toBe(true);
    expect(isKnownEventPattern('task.exploded')).toBe(false);
    expect(isKnownEventPattern('nosuch.*')).toBe(false);
  });

  it('accepts a plain subscription and refuses bad fields by name', () => {
    expect(firstIssuePath(valid)).toBeUndefined();
    expect(firstIssuePath({ ...valid, url: 'ftp://hooks.example/x' })).toBe('url');
    expect(firstIssuePath({ ...valid, url: 'https://user:pw@hooks.example/x' })).toBe('url');
    expect(firstIssuePath({ ...valid, url: 'x'.repeat(3_000) })).toBe('url');
    expect(firstIssuePath({ ...valid, eventTypes: ['task.exploded'] })).toBe('eventTypes.0');
    expect(firstIssuePath({ ...valid, eventTypes: [] })).toBe('eventTypes');
    expect(firstIssuePath({ ...valid, secret: 'short' })).toBe('secret');
    expect(firstIssuePath({ ...valid, teams: ['Not A Team'] })).toBe('teams.0');
    expect(firstIssuePath({ ...valid, colour: 'blue' })).toBe('');
  });

  it('matches exact types and category patterns, within its team and project filters', () => {
    const sub = { id: 'wh', eventTypes: ['task.*', 'team.created'], teams: ['alpha'], projects: null };
    expect(subscriptionMatches(sub, { type: 'task.claimed', team: 'alpha' })).toBe(true);
    expect(subscriptionMatches(sub, { type: 'team.created', team: 'alpha' })).toBe(true);
    expect(subscriptionMatches(sub, { type: 'team.shutdown-requested', team: 'alpha' })).toBe(false);
    expect(subscriptionMatches(sub, { type: 'task.claimed', team: 'beta' })).toBe(false);
    expect(subscriptionMatches(sub, { type: 'task.claimed' })).toBe(false);
    const byProject = { id: 'wh', eventTypes: ['*'], teams: null, projects: ['shop'] };
    expect(subscriptionMatches(byProject, { type: 'group.opened', project: 'shop' })).toBe(true);
    expect(subscriptionMatches(byProject, { type: 'group.opened', project: 'blog' })).toBe(false);
  });
});
