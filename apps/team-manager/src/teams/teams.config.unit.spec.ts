import { describe, expect, it } from 'vitest';
import { teamsConfigProvider } from './teams.config';

describe('team lifecycle and teammate settings', () => {
  const load = (config: Record<string, unknown>) => teamsConfigProvider.useFactory(config);

  it('defaults: spawn depth limit 3, shutdown sweep every second', () => {
    const saved = { depth: process.env.TEAMMATE_MAX_DEPTH, sweep: process.env.TEAM_SHUTDOWN_SWEEP_MS };
    delete process.env.TEAMMATE_MAX_DEPTH;
    delete process.env.TEAM_SHUTDOWN_SWEEP_MS;
    try {
      expect(load({})).toEqual({ TEAMMATE_MAX_DEPTH: 3, TEAM_SHUTDOWN_SWEEP_MS: 1_000 });
    } finally {
      if (saved.depth !== undefined) process.env.TEAMMATE_MAX_DEPTH = saved.depth;
      if (saved.sweep !== undefined) process.env.TEAM_SHUTDOWN_SWEEP_MS = saved.sweep;
    }
  });

  it('the app config wins over the environment; bad values are refused naming the variable', () => {
    expect(load({ TEAMMATE_MAX_DEPTH: '5', TEAM_SHUTDOWN_SWEEP_MS: 250 })).toEqual({ TEAMMATE_MAX_DEPTH: 5, TEAM_SHUTDOWN_SWEEP_MS: 250 });
    expect(() => load({ TEAMMATE_MAX_DEPTH: '0' })).toThrow(/TEAMMATE_MAX_DEPTH/);
  });
});
