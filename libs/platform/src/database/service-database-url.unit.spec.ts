import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error';
import { MIGRATOR, databaseRoleOf, databaseUrlFor, serviceProcessEnv, withServiceDatabaseUrl } from './service-database-url';

const admin = 'postgres://postgres:admin-secret@db.example:5433/headspace?sslmode=require';

describe('per-service database URLs', () => {
  it('names one role per service and one for migrations', () => {
    expect(databaseRoleOf('team-manager')).toBe('hs_team_manager');
    expect(databaseRoleOf('ops-leon')).toBe('hs_ops_leon');
    expect(databaseRoleOf(MIGRATOR)).toBe('hs_migrator');
  });

  it('with roles on, keeps host, port, database and options but logs in as the role with its own password', () => {
    const url = new URL(databaseUrlFor('cost-governor', { DATABASE_URL: admin, HS_DB_PASSWORD_COST_GOVERNOR: 'p@ss/word' }, true));
    expect(url.username).toBe('hs_cost_governor');
    expect(decodeURIComponent(url.password)).toBe('p@ss/word');
    expect(`${url.host}${url.pathname}${url.search}`).toBe('db.example:5433/headspace?sslmode=require');
  });

  it('never hands the administrator password to a role that has none (trust auth)', () => {
    const url = databaseUrlFor('gateway', { DATABASE_URL: admin }, true);
    expect(url).toBe('postgres://hs_gateway@db.example:5433/headspace?sslmode=require');
  });

  it('prefers DATABASE_URL_<SERVICE> and otherwise, with roles off, uses DATABASE_URL as given', () => {
    const own = 'postgres://tm:pw@other:5432/tm';
    expect(databaseUrlFor('team-manager', { DATABASE_URL: admin, DATABASE_URL_TEAM_MANAGER: own }, true)).toBe(own);
    expect(databaseUrlFor('team-manager', { DATABASE_URL: admin }, false)).toBe(admin);
    expect(databaseUrlFor(MIGRATOR, { DATABASE_URL: admin, HS_DB_PASSWORD_MIGRATOR: 'm' }, true)).toBe(
      'postgres://hs_migrator:m@db.example:5433/headspace?sslmode=require',
    );
  });

  it('names a malformed per-service URL or a bad HS_DB_ROLES without echoing the value', () => {
    const bad = () => withServiceDatabaseUrl('orchestrator', { DATABASE_URL: admin, DATABASE_URL_ORCHESTRATOR: 'mysql://u:leak@h/d' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow('Invalid configuration for orchestrator: DATABASE_URL_ORCHESTRATOR must be a postgres:// or postgresql:// URL');
    expect(() => withServiceDatabaseUrl('orchestrator', { DATABASE_URL: admin, HS_DB_ROLES: 'maybe' })).toThrow('HS_DB_ROLES must be true or false');
  });

  it('a service process started by bootstrap connects as its role only when HS_DB_ROLES=true', () => {
    expect(withServiceDatabaseUrl('ops-leon', { DATABASE_URL: admin }).DATABASE_URL).toBe(admin);
    expect(withServiceDatabaseUrl('ops-leon', { DATABASE_URL: admin, HS_DB_ROLES: 'true' }).DATABASE_URL).toBe(
      'postgres://hs_ops_leon@db.example:5433/headspace?sslmode=require',
    );
    expect(withServiceDatabaseUrl('ops-leon', {})).toEqual({}); // loadConfig then reports DATABASE_URL is required
  });

  it('a supervised service gets only its own URL: no administrator URL, no other role password', () => {
    const env = serviceProcessEnv(
      'gateway',
      { DATABASE_URL: admin, HS_DB_PASSWORD_GATEWAY: 'g', HS_DB_PASSWORD_ORCHESTRATOR: 'o', DATABASE_URL_OPS_LEON: admin, HS_DB_ROLES: 'true', NATS_URL: 'nats://n:4222' },
      true,
    );
    expect(env).toEqual({ DATABASE_URL: 'postgres://hs_gateway:g@db.example:5433/headspace?sslmode=require', NATS_URL: 'nats://n:4222' });
    expect(JSON.stringify(env)).not.toContain('admin-secret');
  });
});
