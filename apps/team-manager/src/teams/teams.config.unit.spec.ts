import { describe, expect, it } from 'vitest';
import { teamsConfigProvider } from './teams.config';

describe('team lifecycle and teammate settings', () => {
  const load = (config: Record<string, unknown>) => teamsConfigProvider.useFactory(config);

  it('defaults: spawn depth limit 3, shutdown sweep every second', () => {
    expect(load({})).toEqual({ TEAMMATE_MAX_DEPTH: 3, TEAM_SHUTDOWN_SWEEP_MS: 1_000 });
  });

  it('values come from the app config; bad values are refused naming the variable', () => {
    expect(load({ TEAMMATE_MAX_DEPTH: '5', TEAM_SHUTDOWN_SWEEP_MS: 250 })).toEqual({ TEAMMATE_MAX_DEPTH: 5, TEAM_SHUTDOWN_SWEEP_MS: 250 });
    expect(() => load({ TEAMMATE_MAX_DEPTH: '0' })).toThrow(/TEAMMATE_MAX_DEPTH/);
  });
});
