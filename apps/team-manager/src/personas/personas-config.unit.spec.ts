import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HeadspaceError } from '@headspace/contracts';
import { DEFAULT_PERSONAS_FILE, loadPersonasFile, parsePersonasConfig } from './personas-config';

function fieldOf(text: string): string | undefined {
  try {
    parsePersonasConfig(text);
  } catch (error) {
    expect(error).toBeInstanceOf(HeadspaceError);
    expect((error as HeadspaceError).code).toBe('PERSONA.CONFIG_INVALID');
    return (error as HeadspaceError).field;
  }
  throw new Error('expected the config to be refused');
}

describe('personas config file', () => {
  it('the shipped defaults hold the 8 personas of seed §5.2 and the pools of §5.4, max 3 concurrent agents', () => {
    const { config } = loadPersonasFile(DEFAULT_PERSONAS_FILE);
    expect(config.maxConcurrentAgents).toBe(3);
    expect(config.personas.map((p) => p.personaId)).toEqual(['con', 'al', 'may', 'gavin', 'robbo', 'verner', 'leon', 'mark']);
    expect(Object.fromEntries(config.pools.map((p) => [p.pool, p.personas]))).toEqual({
      workshop: ['robbo'],
      architecture: ['robbo'],
      review: ['robbo'],
      pm: ['gavin'],
      backend: ['con', 'may', 'mark'],
      frontend: ['al', 'mark'],
      database: ['may', 'con'],
      integration: ['mark'],
      qa: ['verner'],
      ops: ['leon'],
    });
    const byId = Object.fromEntries(config.personas.map((p) => [p.personaId, p]));
    expect(byId.robbo).toMatchObject({ name: 'Robbo', roleType: 'workshop', mode: 'workshop', pools: ['architecture', 'workshop', 'review'] });
    expect(byId.gavin).toMatchObject({ roleType: 'pm', mode: 'execution' });
    expect(byId.verner).toMatchObject({ roleType: 'qa', pools: ['qa', 'backend', 'frontend', 'database', 'integration'] });
    expect(byId.leon).toMatchObject({ roleType: 'ops' });
    for (const id of ['con', 'al', 'may', 'mark']) expect(byId[id].roleType).toBe('execution');
  });

  it('defaults: max_concurrent_agents 3, role type execution, mode from the role type', () => {
    const { config } = parsePersonasConfig('personas:\n  robbo:\n    name: Robbo\n    role_type: workshop\n  con:\n    name: Con\n');
    expect(config.maxConcurrentAgents).toBe(3);
    expect(config.personas).toEqual([
      { personaId: 'robbo', name: 'Robbo', description: '', roleType: 'workshop', mode: 'workshop', pools: [] },
      { personaId: 'con', name: 'Con', description: '', roleType: 'execution', mode: 'execution', pools: [] },
    ]);
  });

  it('a persona may name its default runtime; an unknown one is refused naming the field', () => {
    const { config } = parsePersonasConfig('personas:\n  con:\n    name: Con\n    runtime: claude-code\n  al:\n    name: Al\n');
    expect(config.personas.map((p) => [p.personaId, p.runtime])).toEqual([
      ['con', 'claude-code'],
      ['al', undefined],
    ]);
    expect(() => parsePersonasConfig('personas:\n  con:\n    name: Con\n    runtime: codex\n')).toThrow(expect.objectContaining({ field: 'personas.con.runtime' }));
  });

  it('a bad file is refused naming the field', () => {
    expect(fieldOf('personas:\n  con:\n    name: Con\n    role_type: wizard\n')).toBe('personas.con.role_type');
    expect(fieldOf('personas:\n  con:\n    description: no name\n')).toBe('personas.con.name');
    expect(fieldOf('personas:\n  Con!:\n    name: Con\n')).toBe('personas.Con!');
    expect(fieldOf('max_concurrent_agents: 0\npersonas: {}\n')).toBe('max_concurrent_agents');
    expect(fieldOf('max_concurrent_agents: three\npersonas: {}\n')).toBe('max_concurrent_agents');
    expect(fieldOf('personas:\n  con:\n    name: Con\n    colour: red\n')).toBe('personas.con.colour');
    expect(fieldOf('personas:\n  con:\n    name: Con\npools:\n  backend:\n    personas: [con, ghost]\n')).toBe('pools.backend.personas.1');
    expect(fieldOf('pools: {}\n')).toBe('personas');
    expect(fieldOf(`personas:\n  con:\n    name: Con\n    description: "${'x'.repeat(2_001)}"\n`)).toBe('personas.con.description');
    expect(fieldOf('personas: [unclosed\n')).toBe('(yaml)');
  });

  it('the hash ignores comments and formatting but not content', () => {
    const text = readFileSync(DEFAULT_PERSONAS_FILE, 'utf8');
    expect(parsePersonasConfig(`# extra comment\n${text}`).hash).toBe(parsePersonasConfig(text).hash);
    expect(parsePersonasConfig(text.replace('max_concurrent_agents: 3', 'max_concurrent_agents: 4')).hash).not.toBe(parsePersonasConfig(text).hash);
  });
});
