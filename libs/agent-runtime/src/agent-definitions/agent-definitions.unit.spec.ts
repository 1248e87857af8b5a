import { MODEL_TABLE } from '@headspace/llm';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadspaceError } from '@headspace/contracts';
import { parseAgentDefinition, parseInlineAgents, type AgentDefinition } from './parse';
import { ANTI_PATTERN_CODES, checkAntiPatterns } from './anti-patterns';
import { AgentRegistry, defaultAgentLocations, type AgentRegistrySnapshot } from './registry';
import { resolveToolAliases } from './aliases';
import { toAgentRuntimeSettings } from './runtime-settings';
import { BUILT_IN_AGENT_TEMPLATES } from './templates';

const GOOD_DESCRIPTION = 'Reviews database migrations for locking and rollback safety. Use when a change adds a migration, e.g. "check the new users table migration".';

const md = (fm: Record<string, string | number>, body = 'You review migrations.') =>
  `---\n${Object.entries(fm).map(([k, v]) => `${k}: ${typeof v === 'string' && /[:#"]/.test(v) ? JSON.stringify(v) : v}`).join('\n')}\n---\n${body}\n`;

function errorOf(fn: () => unknown): HeadspaceError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HeadspaceError);
    return err as HeadspaceError;
  }
  throw new Error('expected an error');
}

describe('parsing and validation', () => {
  it('reads frontmatter and uses the markdown body as the system prompt', () => {
    const def = parseAgentDefinition(md({ name: 'migration-reviewer', description: GOOD_DESCRIPTION, model: 'opus', tools: 'read, Grep, bash(git diff:*)', maxTurns: 12, color: 'purple' }), { source: 'x.md', scope: 'project' });
    expect(def).toMatchObject({ key: 'migration-reviewer', model: 'opus', tools: ['read', 'Grep', 'bash(git diff:*)'], maxTurns: 12, permissionMode: 'default', systemPrompt: 'You review migrations.' });
    expect(resolveToolAliases(def.tools ?? [])).toEqual(['Read', 'Grep', 'Bash(git diff:*)']);
  });

  const cases: Array<[string, string, string]> = [
    ['a missing name', md({ description: GOOD_DESCRIPTION }), 'name'],
    ['a name that is not lowercase-with-hyphens', md({ name: 'Migration_Reviewer', description: GOOD_DESCRIPTION }), 'name'],
    ['a missing description', md({ name: 'a' }), 'description'],
    ['an unknown model alias', md({ name: 'a', description: GOOD_DESCRIPTION, model: 'gpt-4' }), 'model'],
    ['a non-integer maxTurns', md({ name: 'a', description: GOOD_DESCRIPTION, maxTurns: 'many' }), 'maxTurns'],
    ['an unknown colour', md({ name: 'a', description: GOOD_DESCRIPTION, color: 'pink' }), 'color'],
    ['an unknown permission mode', md({ name: 'a', description: GOOD_DESCRIPTION, permissionMode: 'yolo' }), 'permissionMode'],
    ['tools together with disallowedTools', md({ name: 'a', description: GOOD_DESCRIPTION, tools: 'Read', disallowedTools: 'Bash' }), 'disallowedTools'],
    ['an unknown field', md({ name: 'a', description: GOOD_DESCRIPTION, colour: 'red' }), 'colour'],
    ['no frontmatter', 'Just a prompt', '(frontmatter)'],
    ['YAML that does not parse', '---\nname: [a\n---\nbody', '(frontmatter)'],
  ];
  for (const [what, text, field] of cases) {
    it(`rejects ${what} naming the field ${field} and the file`, () => {
      const err = errorOf(() => parseAgentDefinition(text, { source: '/p/.headspace/agents/bad.md', scope: 'project' }));
      expect(err.code).toBe('AGENT_DEFINITION.INVALID');
      expect(err.field).toBe(field);
      expect(err.message).toContain('/p/.headspace/agents/bad.md');
      expect(err.details?.file).toBe('/p/.headspace/agents/bad.md');
    });
  }

  it('reads CLI inline agents from --agents JSON', () => {
    const [def] = parseInlineAgents(JSON.stringify({ 'quick-check': { description: GOOD_DESCRIPTION, prompt: 'Check it.', model: 'haiku' } }));
    expect(def).toMatchObject({ key: 'quick-check', scope: 'cli', systemPrompt: 'Check it.', model: 'haiku' });
  });

  it('ships five valid built-in templates', () => {
    const defs = Object.entries(BUILT_IN_AGENT_TEMPLATES).map(([n, t]) => parseAgentDefinition(t, { source: n, scope: 'built-in' }));
    expect(defs.map((d) => [d.name, d.model, d.color])).toEqual([
      ['code-reviewer', 'sonnet', 'purple'],
      ['security-auditor', 'opus', 'red'],
      ['implementer-tester', 'sonnet', 'green'],
      ['researcher', 'haiku', 'cyan'],
      ['architect', 'opus', 'blue'],
    ]);
    expect(checkAntiPatterns(defs.map((d) => ({ ...d, scope: 'project' as const }))).map((w) => w.message)).toEqual([]);
  });
});

describe('runtime settings for a persona agent type', () => {
  it('resolves aliases, injects memory before the prompt and substitutes env in MCP servers', () => {
    const def = parseAgentDefinition(
      `---\nname: researcher\ndescription: ${JSON.stringify(GOOD_DESCRIPTION)}\nmodel: haiku\ntools: read-only\nmaxTurns: 7\neffort: deep\nmemory: Remember the monorepo layout.\nmcpServers:\n  github:\n    env:\n      TOKEN: "\${GH_TOKEN}"\n---\nResearch.\n`,
      { source: 'r.md', scope: 'user' },
    );
    const s = toAgentRuntimeSettings(def, { model: 'claude-sonnet-4-5-20250929', env: { GH_TOKEN: 't0k' } });
    expect(s).toMatchObject({
      agentType: 'researcher',
      model: MODEL_TABLE.haiku.id,
      tools: ['Read', 'Glob', 'Grep'],
      systemPrompt: '## Memory\nRemember the monorepo layout.\n\nResearch.',
      effort: 'deep',
      maxTurns: 7,
      mcpServers: { github: { env: { TOKEN: 't0k' } } },
    });
    const inherit = toAgentRuntimeSettings({ ...def, model: 'inherit' }, { model: 'claude-opus-4-6' });
    expect(inherit.model).toBe('claude-opus-4-6');
    expect(toAgentRuntimeSettings({ ...def, model: 'sonnet' }, { model: 'x' }).model).toBe(MODEL_TABLE.sonnet.id);
  });
});

describe('anti-pattern warnings (Requirement 24)', () => {
  const def = (over: Partial<AgentDefinition>): AgentDefinition => ({
    name: 'migration-reviewer',
    key: over.name ?? 'migration-reviewer',
    description: GOOD_DESCRIPTION,
    model: 'inherit',
    permissionMode: 'default',
    tools: ['Read', 'Grep'],
    maxTurns: 10,
    color: 'purple',
    systemPrompt: 'x',
    scope: 'project',
    source: 'a.md',
    raw: '',
    ...over,
  });
  const codes = (defs: AgentDefinition[]) => checkAntiPatterns(defs).map((w) => w.code);

  it('accepts a well-formed agent without warnings', () => {
    expect(codes([def({})])).toEqual([]);
  });

  it('warns on each anti-pattern with its code', () => {
    expect(codes([def({ description: 'Helps with various tasks.' })])).toEqual([ANTI_PATTERN_CODES.vagueDescription]);
    expect(codes([def({ tools: ['Read', 'Write', 'Edit'] })])).toEqual([ANTI_PATTERN_CODES.reviewerWriteAccess]);
    expect(codes([def({ tools: undefined })])).toEqual([ANTI_PATTERN_CODES.reviewerWriteAccess]);
    expect(codes([def({ maxTurns: undefined })])).toEqual([ANTI_PATTERN_CODES.missingMaxTurns]);
    expect(codes([def({ raw: 'env:\n  ANTHROPIC_API_KEY: sk-ant-api03-abcdefghijklmnop' })])).toEqual([ANTI_PATTERN_CODES.hardcodedSecret]);
    expect(codes([def({ skills: ['a', 'b', 'c', 'd'] })])).toEqual([ANTI_PATTERN_CODES.tooManySkills]);
    expect(codes([def({ color: 'green' })])).toEqual([ANTI_PATTERN_CODES.colorRoleMismatch]);
    const six = Array.from({ length: 6 }, (_, i) => def({ name: `reviewer-${i}`, key: `reviewer-${i}` }));
    expect(codes(six)).toEqual([ANTI_PATTERN_CODES.tooManyAgents]);
  });

  it('does not flag env-substituted secrets or read-only reviewers in plan mode', () => {
    expect(codes([def({ raw: 'env:\n  API_KEY: "${API_KEY}"' })])).toEqual([]);
    expect(codes([def({ tools: undefined, permissionMode: 'plan' })])).toEqual([]);
  });
});

describe('registry: precedence and hot reload', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'hs-agents-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const write = async (dir: string, file: string, text: string) => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, file), text);
  };

  it('resolves the same name by precedence managed > project > user > plugin > cli > built-in and reports invalid files', async () => {
    const project = join(root, 'repo');
    const home = join(root, 'home');
    const managed = join(root, 'managed');
    const plugin = join(root, 'plugins', 'lint-kit');
    await write(join(home, 'agents'), 'reviewer.md', md({ name: 'reviewer', description: GOOD_DESCRIPTION, maxTurns: 1 }, 'user'));
    await write(join(project, '.headspace', 'agents'), 'reviewer.md', md({ name: 'reviewer', description: GOOD_DESCRIPTION, maxTurns: 2 }, 'project'));
    await write(join(home, 'agents'), 'solo.md', md({ name: 'solo', description: GOOD_DESCRIPTION, maxTurns: 3 }, 'user solo'));
    await write(join(plugin, 'agents'), 'reviewer.md', md({ name: 'reviewer', description: GOOD_DESCRIPTION, maxTurns: 4 }, 'plugin'));
    await write(join(project, '.headspace', 'agents'), 'broken.md', md({ name: 'broken', description: GOOD_DESCRIPTION, model: 'gpt' }));
    await write(join(managed, 'agents'), 'code-reviewer.md', md({ name: 'code-reviewer', description: GOOD_DESCRIPTION, maxTurns: 5 }, 'managed'));
    const cli = JSON.stringify({ solo: { description: GOOD_DESCRIPTION, prompt: 'cli solo' }, fresh: { description: GOOD_DESCRIPTION, prompt: 'cli fresh', maxTurns: 1 } });
    const registry = new AgentRegistry(defaultAgentLocations({ projectDir: project, home, managedDir: managed, plugins: [{ name: 'lint-kit', dir: plugin }], cliAgents: cli }));
    const snap = await registry.load();

    expect(registry.get('reviewer').systemPrompt).toBe('project');
    expect(registry.get('lint-kit:reviewer').systemPrompt).toBe('plugin');
    expect(registry.get('solo').systemPrompt).toBe('user solo');
    expect(registry.get('fresh').scope).toBe('cli');
    expect(registry.get('code-reviewer').systemPrompt).toBe('managed');
    expect(registry.get('researcher').scope).toBe('built-in');
    expect(snap.shadowed.map((s) => [s.key, s.source]).sort()).toEqual([
      ['code-reviewer', 'built-in:code-reviewer'],
      ['reviewer', join(home, 'agents', 'reviewer.md')],
      ['solo', 'cli:0'],
    ]);
    expect(snap.errors).toHaveLength(1);
    expect(snap.errors[0]).toMatchObject({ code: 'AGENT_DEFINITION.INVALID', field: 'model' });
    expect(snap.errors[0].message).toContain('broken.md');
    expect(registry.toolDefinitions()).toContainEqual({ name: 'agent:lint-kit:reviewer', description: GOOD_DESCRIPTION });
    expect(() => registry.get('nobody')).toThrow(/No agent definition/);
    // 5 custom agents (reviewer, solo, lint-kit:reviewer, fresh, code-reviewer) is within the limit
    expect(snap.warnings.map((w) => w.code)).not.toContain(ANTI_PATTERN_CODES.tooManyAgents);
  });

  it('hot-reloads an edited definition and a new file without restart', async () => {
    const dir = join(root, 'repo', '.headspace', 'agents');
    await write(dir, 'reviewer.md', md({ name: 'reviewer', description: GOOD_DESCRIPTION, maxTurns: 3 }, 'v1'));
    const registry = new AgentRegistry(defaultAgentLocations({ projectDir: join(root, 'repo'), home: join(root, 'home'), builtIns: false }), { debounceMs: 20 });
    await registry.load();
    registry.watch();
    try {
      const until = (pred: (s: AgentRegistrySnapshot) => boolean) =>
        new Promise<AgentRegistrySnapshot>((resolve) => {
          const on = (s: AgentRegistrySnapshot) => {
            if (pred(s)) {
              registry.off('change', on);
              resolve(s);
            }
          };
          registry.on('change', on);
        });
      const edited = until((s) => s.definitions.find((d) => d.key === 'reviewer')?.systemPrompt === 'v2');
      await writeFile(join(dir, 'reviewer.md'), md({ name: 'reviewer', description: GOOD_DESCRIPTION, maxTurns: 9 }, 'v2'));
      expect((await edited).definitions.find((d) => d.key === 'reviewer')?.maxTurns).toBe(9);

      const added = until((s) => s.definitions.some((d) => d.key === 'planner'));
      await writeFile(join(dir, 'planner.md'), md({ name: 'planner', description: GOOD_DESCRIPTION, maxTurns: 2 }, 'plan'));
      await added;
      expect(registry.get('planner').systemPrompt).toBe('plan');
    } finally {
      registry.close();
    }
  });
});
