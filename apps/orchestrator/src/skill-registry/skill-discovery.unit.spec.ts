import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSkills, skillSources } from './skill-discovery';

let root: string;
const write = async (dir: string, name: string, description: string, extra = '') => {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n${extra}---\nBody of ${name} from ${description}.\n`);
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skill-discovery-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('skill discovery and precedence', () => {
  it('finds skills in the workspace (.claude and .headspace), the user dir and plugins, plugin skills namespaced', async () => {
    const workspace = join(root, 'ws');
    const home = join(root, 'home');
    await write(join(workspace, '.claude', 'skills'), 'lint-fix', 'project claude');
    await write(join(workspace, '.headspace', 'skills'), 'db-migrate', 'project headspace');
    await write(join(home, '.claude', 'skills'), 'tidy', 'user');
    await write(join(root, 'plugin-a', 'skills'), 'lint-fix', 'plugin');
    const catalog = await discoverSkills(skillSources({ workspace, home, pluginDirs: [{ plugin: 'kit', dir: join(root, 'plugin-a', 'skills') }] }));
    expect(catalog.skills.map((s) => [s.key, s.origin, s.description])).toEqual([
      ['db-migrate', 'project', 'project headspace'],
      ['kit:lint-fix', 'plugin', 'plugin'],
      ['lint-fix', 'project', 'project claude'],
      ['tidy', 'user', 'user'],
    ]);
    expect(catalog.skills.find((s) => s.key === 'kit:lint-fix')).toMatchObject({ plugin: 'kit', dir: join(root, 'plugin-a', 'skills', 'lint-fix') });
    expect(catalog.invalid).toEqual([]);
  });

  it('on a name clash the user skill wins over the project one (Claude Code: personal > project), and .claude over .headspace', async () => {
    const workspace = join(root, 'ws');
    const home = join(root, 'home');
    await write(join(workspace, '.claude', 'skills'), 'deploy', 'project claude');
    await write(join(workspace, '.headspace', 'skills'), 'deploy', 'project headspace');
    await write(join(workspace, '.headspace', 'skills'), 'review', 'project headspace');
    await write(join(workspace, '.claude', 'skills'), 'review', 'project claude');
    await write(join(home, '.headspace', 'skills'), 'deploy', 'user');
    const { skills } = await discoverSkills(skillSources({ workspace, home }));
    expect(skills.map((s) => [s.key, s.description])).toEqual([
      ['deploy', 'user'],
      ['review', 'project claude'],
    ]);
  });

  it('skips a skill with bad frontmatter, naming file and field, and keeps the others', async () => {
    const dir = join(root, 'ws', '.claude', 'skills');
    await write(dir, 'good', 'fine');
    await mkdir(join(dir, 'bad'), { recursive: true });
    await writeFile(join(dir, 'bad', 'SKILL.md'), '---\nname: bad\n---\nno description\n');
    await mkdir(join(dir, 'no-skill-file'), { recursive: true });
    const catalog = await discoverSkills(skillSources({ workspace: join(root, 'ws'), home: join(root, 'home') }));
    expect(catalog.skills.map((s) => s.key)).toEqual(['good']);
    expect(catalog.invalid).toEqual([{ file: join(dir, 'bad', 'SKILL.md'), field: 'description', message: 'is required' }]);
  });

  it('treats missing directories as no skills', async () => {
    expect(await discoverSkills(skillSources({ workspace: join(root, 'nope'), home: join(root, 'nope2'), pluginDirs: [{ plugin: 'p', dir: join(root, 'x') }] }))).toEqual({ skills: [], invalid: [] });
  });
});
