import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error';
import { natsAuthOptions, type NatsAuthSettings } from './nats-connection';

const dir = mkdtempSync(join(tmpdir(), 'hs-nats-auth-unit-'));
const file = join(dir, 'service.nk');
writeFileSync(file, 'SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The variables a ConfigError names for these settings (never their values). */
function problems(settings: NatsAuthSettings): { variables: string[]; message: string } {
  try {
    natsAuthOptions(settings, 'orchestrator');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { variables: (error as ConfigError).problems.map((p) => p.variable), message: (error as Error).message };
  }
  return { variables: [], message: '' };
}

describe('NATS credentials from the environment', () => {
  it('refuses a user without a password and a password without a user, naming the missing one', () => {
    expect(problems({ NATS_USER: 'orchestrator' }).variables).toEqual(['NATS_PASSWORD']);
    expect(problems({ NATS_PASSWORD: 's3cret-value' })).toEqual({ variables: ['NATS_USER'], message: expect.not.stringContaining('s3cret-value') });
  });

  it('refuses two credentials at once', () => {
    expect(problems({ NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_NKEY_SEED_FILE: file }).variables).toEqual(['NATS_NKEY_SEED_FILE']);
  });

  it('refuses files it cannot read, and a client certificate without its key', () => {
    const missing = join(dir, 'absent.creds');
    const { variables, message } = problems({ NATS_CREDS: missing, NATS_TLS_CERT: file });
    expect(variables).toEqual(['NATS_TLS_KEY', 'NATS_CREDS']);
    expect(message).not.toContain(missing);
  });

  it('turns valid settings into connect options: user and password, an nkey authenticator, TLS files', () => {
    expect(natsAuthOptions({ NATS_USER: 'u', NATS_PASSWORD: 'p' })).toEqual({ user: 'u', pass: 'p' });
    expect(natsAuthOptions({ NATS_NKEY_SEED_FILE: file }).authenticator).toBeTypeOf('function');
    expect(natsAuthOptions({ NATS_TLS_CA: file, NATS_TLS_CERT: file, NATS_TLS_KEY: file }).tls).toEqual({ caFile: file, certFile: file, keyFile: file });
    expect(natsAuthOptions({})).toEqual({});
  });
});
