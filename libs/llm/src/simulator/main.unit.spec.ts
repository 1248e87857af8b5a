import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extraScenarioDirsFromEnv } from './main';

describe('extra scenario directories from the environment', () => {
  it('splits HS_SIMULATOR_SCENARIOS on the platform path delimiter, keeping the order', () => {
    const env = { HS_SIMULATOR_SCENARIOS: ['/a/first', '/b/second'].join(delimiter) };
    expect(extraScenarioDirsFromEnv(env)).toEqual(['/a/first', '/b/second']);
  });

  it('ignores blank entries and surrounding spaces', () => {
    const env = { HS_SIMULATOR_SCENARIOS: ` /a ${delimiter}${delimiter}  ${delimiter}/b` };
    expect(extraScenarioDirsFromEnv(env)).toEqual(['/a', '/b']);
  });

  it('has no extra directories when the variable is unset or empty', () => {
    expect(extraScenarioDirsFromEnv({})).toEqual([]);
    expect(extraScenarioDirsFromEnv({ HS_SIMULATOR_SCENARIOS: '' })).toEqual([]);
  });
});
