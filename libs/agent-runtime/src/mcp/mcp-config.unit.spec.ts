import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../tools/testing/temp-workspace';
import { expandVars, loadMcpConfig, parseMcpConfig } from './mcp-config';

const parse = (raw: unknown, env: Record<string, string> = {}) => parseMcpConfig(raw, '/p/.mcp.json', 'project', env);

describe('.mcp.json parsing', () => {
  it('reads stdio and http servers in Claude Code format, a stdio server without `type` included', () => {
    const { servers, problems } = parse({
      mcpServers: {
        fs: { type: 'stdio', command: 'node', args: ['server.js'], env: { LEVEL: 'debug' } },
        plain: { command: 'npx', args: ['-y', 'some-server'] },
        api: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      },
    });
    expect(problems).toEqual([]);
    expect(servers.map((s) => [s.name, s.config])).toEqual([
      ['fs', { type: 'stdio', command: 'node', args: ['server.js'], env: { LEVEL: 'debug' } }],
      ['plain', { type: 'stdio', command: 'npx', args: ['-y', 'some-server'], env: {} }],
      ['api', { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } }],
    ]);
    expect(servers[0]).toMatchObject({ scope: 'project', source: '/p/.mcp.json' });
  });

  it('expands ${VAR} and ${VAR:-default} in command, args, env, url and headers', () => {
    const env = { TOOLS: '/opt/tools', TOKEN: 't0k', HOST: 'mcp.internal' };
    const { servers } = parse({
      mcpServers: {
        s: { type: 'stdio', command: '${TOOLS}/bin/srv', args: ['--port=${PORT:-7000}'], env: { API_TOKEN: '${TOKEN}' } },
        h: { type: 'http', url: 'https://${HOST}:${PORT:-8443}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        whole: { type: 'http', url: '${WHOLE_URL:-http://127.0.0.1:9/mcp}' },
      },
    }, env);
    expect(servers.map((s) => s.config)).toEqual([
      { type: 'stdio', command: '/opt/tools/bin/srv', args: ['--port=7000'], env: { API_TOKEN: 't0k' } },
      { type: 'http', url: 'https://mcp.internal:8443/mcp', headers: { Authorization: 'Bearer t0k' } },
      { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} },
    ]);
    expect(expandVars('${EMPTY:-fallback}', { EMPTY: '' })).toBe('fallback');
  });

  it('leaves out only the bad entry, naming the file and the field', () => {
    const { servers, problems } = parse({
      mcpServers: {
        good: { command: 'node' },
        noUrl: { type: 'http' },
        badUrl: { type: 'http', url: 'ftp://x' },
        typo: { type: 'stdio', command: 'node', argz: [] },
        unknownType: { type: 'sse', url: 'http://x' },
        'bad name!': { command: 'node' },
      },
    });
    expect(servers.map((s) => s.name)).toEqual(['good']);
    expect(problems.map((p) => [p.server, p.field])).toEqual([
      ['noUrl', 'mcpServers.noUrl.url'],
      ['badUrl', 'mcpServers.badUrl.url'],
      ['typo', 'mcpServers.typo.argz'],
      ['unknownType', 'mcpServers.unknownType.type'],
      ['bad name!', 'mcpServers.bad name!'],
    ]);
    expect(problems.every((p) => p.source === '/p/.mcp.json' && p.message.length > 0)).toBe(true);
  });

  it('leaves out a server whose variable is unset without a default, naming the variable', () => {
    const { servers, problems } = parse({ mcpServers: { gh: { type: 'http', url: 'https://api/${GH_HOST}', headers: { Authorization: 'Bearer ${GH_TOKEN}' } } } });
    expect(servers).toEqual([]);
    expect(problems).toEqual([{ source: '/p/.mcp.json', field: 'mcpServers.gh', server: 'gh', message: 'environment variable GH_HOST, GH_TOKEN is not set and has no default' }]);
  });

  it('reports a file whose mcpServers is not an object at its field', () => {
    expect(parse({ mcpServers: [] }).problems).toEqual([{ source: '/p/.mcp.json', field: 'mcpServers', message: expect.any(String) }]);
    expect(parse('nope').problems[0].field).toBe('(root)');
  });
});

describe('.mcp.json locations', () => {
  let project: string;
  let home: string;
  beforeEach(async () => {
    project = await makeTempDir('mcp-project-');
    home = await makeTempDir('mcp-home-');
  });
  afterEach(async () => {
    await removeDir(project);
    await removeDir(home);
  });

  it('merges the user and project files; the project wins on a name clash', async () => {
    await writeFile(path.join(home, '.mcp.json'), JSON.stringify({ mcpServers: { shared: { command: 'user-cmd' }, mine: { command: 'mine' } } }));
    await writeFile(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { shared: { command: 'project-cmd' } } }));
    const { servers, problems } = await loadMcpConfig({ projectDir: project, homeDir: home, env: {} });
    expect(problems).toEqual([]);
    expect(servers.map((s) => [s.name, s.scope, s.config.type === 'stdio' ? s.config.command : ''])).toEqual([
      ['shared', 'project', 'project-cmd'],
      ['mine', 'user', 'mine'],
    ]);
  });

  it('names a file that is not JSON and goes on with the other; missing files are no problem', async () => {
    await mkdir(path.join(project, 'sub'));
    await writeFile(path.join(project, '.mcp.json'), '{ not json');
    await writeFile(path.join(home, '.mcp.json'), JSON.stringify({ mcpServers: { mine: { command: 'mine' } } }));
    const loaded = await loadMcpConfig({ projectDir: project, homeDir: home, env: {} });
    expect(loaded.servers.map((s) => s.name)).toEqual(['mine']);
    expect(loaded.problems).toEqual([{ source: path.join(project, '.mcp.json'), field: '(root)', message: expect.stringMatching(/^not JSON/) }]);
    expect(await loadMcpConfig({ projectDir: path.join(project, 'sub'), env: {} })).toEqual({ servers: [], problems: [] });
  });
});
