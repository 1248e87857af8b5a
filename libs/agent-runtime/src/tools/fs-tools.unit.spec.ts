import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { editTool, globTool, grepTool, multiEditTool, readTool, writeTool } from './fs-tools';
import { makeTempDir, removeDir, writeFiles } from './testing/temp-workspace';
import type { ToolContext } from './types';

describe('file tools on a temp workspace', () => {
  let root: string;
  let ctx: ToolContext;
  beforeEach(async () => {
    root = await makeTempDir();
    ctx = { workspaceRoot: root, agentId: 'con', toolUseId: 'toolu_1' };
    await writeFiles(root, {
      'src/app.ts': 'const a = 1;\nconst b = 2;\nexport const sum = a + b;\n',
      'src/util/strings.ts': 'export const upper = (s: string) => s.toUpperCase();\n// TODO: lower\n',
      'docs/readme.md': '# Title\nTODO: write docs\n',
      'node_modules/dep/index.js': 'TODO in a dependency\n',
      '.env.example': 'TODO=1\n',
    });
  });
  afterEach(() => removeDir(root));
  const read = (rel: string) => readFile(path.join(root, rel), 'utf8');

  describe('Read', () => {
    it('returns numbered lines', async () => {
      const r = await readTool.execute({ file_path: 'src/app.ts' }, ctx);
      expect(r).toEqual({ isError: false, content: '     1\tconst a = 1;\n     2\tconst b = 2;\n     3\texport const sum = a + b;' });
    });
    it('reads a window with offset and limit and says how much is left', async () => {
      const r = await readTool.execute({ file_path: 'src/app.ts', offset: 2, limit: 1 }, ctx);
      expect(r.content).toBe('     2\tconst b = 2;\n[1 more lines; read on with offset 3]');
    });
    it('reports a missing file with TOOL.FILE_NOT_FOUND', async () => {
      expect(await readTool.execute({ file_path: 'nope.ts' }, ctx)).toMatchObject({ isError: true, code: ErrorCodes.toolFileNotFound });
    });
  });

  describe('Write', () => {
    it('creates parent directories and reports the modified file', async () => {
      const r = await writeTool.execute({ file_path: 'src/new/deep/file.ts', content: 'x\ny\n' }, ctx);
      expect(r).toMatchObject({ isError: false, filesModified: ['src/new/deep/file.ts'] });
      expect(r.content).toContain('Created');
      expect(await read('src/new/deep/file.ts')).toBe('x\ny\n');
    });
    it('overwrites an existing file', async () => {
      const r = await writeTool.execute({ file_path: 'src/app.ts', content: 'new' }, ctx);
      expect(r.content).toContain('Overwrote');
      expect(await read('src/app.ts')).toBe('new');
    });
  });

  describe('Edit', () => {
    it('replaces a unique match', async () => {
      const r = await editTool.execute({ file_path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' }, ctx);
      expect(r).toMatchObject({ isError: false, filesModified: ['src/app.ts'] });
      expect(await read('src/app.ts')).toBe('const a = 1;\nconst b = 3;\nexport const sum = a + b;\n');
    });
    it('refuses an ambiguous match and leaves the file unchanged', async () => {
      const r = await editTool.execute({ file_path: 'src/app.ts', old_string: 'const', new_string: 'let' }, ctx);
      expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolEditAmbiguous });
      expect(r.content).toContain('3 times');
      expect(await read('src/app.ts')).toContain('const a = 1;');
    });
    it('replaces every occurrence with replace_all', async () => {
      const r = await editTool.execute({ file_path: 'src/app.ts', old_string: 'const', new_string: 'let', replace_all: true }, ctx);
      expect(r.content).toContain('3 occurrences');
      expect(await read('src/app.ts')).toBe('let a = 1;\nlet b = 2;\nexport let sum = a + b;\n');
    });
    it('reports no match with TOOL.EDIT_NO_MATCH', async () => {
      expect(await editTool.execute({ file_path: 'src/app.ts', old_string: 'const c', new_string: 'x' }, ctx)).toMatchObject({ isError: true, code: ErrorCodes.toolEditNoMatch });
    });
    it('refuses identical old and new strings', async () => {
      expect(await editTool.execute({ file_path: 'src/app.ts', old_string: 'a', new_string: 'a' }, ctx)).toMatchObject({ isError: true, code: ErrorCodes.toolInputInvalid });
    });
    it('treats $ patterns in new_string literally', async () => {
      await editTool.execute({ file_path: 'src/app.ts', old_string: 'const a = 1;', new_string: "const a = '$&$1';" }, ctx);
      expect(await read('src/app.ts')).toContain("const a = '$&$1';");
    });
  });

  describe('MultiEdit', () => {
    it('applies edits in order', async () => {
      const r = await multiEditTool.execute({ file_path: 'src/app.ts', edits: [{ old_string: 'const a = 1;', new_string: 'const a = 10;' }, { old_string: 'const', new_string: 'let', replace_all: true }] }, ctx);
      expect(r).toMatchObject({ isError: false, filesModified: ['src/app.ts'] });
      expect(await read('src/app.ts')).toBe('let a = 10;\nlet b = 2;\nexport let sum = a + b;\n');
    });
    it('changes nothing when any edit fails', async () => {
      const r = await multiEditTool.execute({ file_path: 'src/app.ts', edits: [{ old_string: 'const a = 1;', new_string: 'const a = 10;' }, { old_string: 'missing', new_string: 'x' }] }, ctx);
      expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolEditNoMatch, content: expect.stringContaining('Edit 2 of 2 failed; nothing was changed') });
      expect(await read('src/app.ts')).toContain('const a = 1;');
    });
  });

  describe('Glob', () => {
    it('finds files by pattern, sorted, skipping node_modules', async () => {
      expect((await globTool.execute({ pattern: '**/*.ts' }, ctx)).content).toBe('src/app.ts\nsrc/util/strings.ts');
      expect((await globTool.execute({ pattern: '**/*.js' }, ctx)).content).toBe('No files match **/*.js.');
    });
    it('searches under a sub-directory and returns workspace-relative paths', async () => {
      expect((await globTool.execute({ pattern: '*.ts', path: 'src/util' }, ctx)).content).toBe('src/util/strings.ts');
    });
    it('rejects patterns that climb out with ..', () => {
      expect(globTool.schema.safeParse({ pattern: '../**/*' }).success).toBe(false);
    });
  });

  describe('Grep', () => {
    it('lists matching files by default (dotfiles included, node_modules skipped)', async () => {
      const r = await grepTool.execute({ pattern: 'TODO' }, ctx);
      expect(r.content).toBe('.env.example\ndocs/readme.md\nsrc/util/strings.ts\n(3 files)');
    });
    it('shows matching lines with line numbers in content mode, filtered by glob', async () => {
      const r = await grepTool.execute({ pattern: 'todo', glob: '**/*.ts', output_mode: 'content', case_insensitive: true }, ctx);
      expect(r.content).toBe('src/util/strings.ts:2:// TODO: lower');
    });
    it('counts matches per file', async () => {
      const r = await grepTool.execute({ pattern: 'const', output_mode: 'count', path: 'src' }, ctx);
      expect(r.content).toBe('src/app.ts:3\nsrc/util/strings.ts:1\n(2 files)');
    });
    it('caps results at head_limit with a note', async () => {
      const r = await grepTool.execute({ pattern: '.', output_mode: 'content', head_limit: 2 }, ctx);
      expect(r.content.split('\n').slice(0, 2)).toHaveLength(2);
      expect(r.content).toMatch(/\[\d+ more results not shown; narrow the search\]/);
    });
    it('does not read through a symlinked file that points outside the workspace', async () => {
      const outside = await makeTempDir('hs-outside-');
      try {
        await writeFiles(outside, { 'secret.txt': 'TODO leaked secret\n' });
        await symlink(path.join(outside, 'secret.txt'), path.join(root, 'innocent.txt'));
        const r = await grepTool.execute({ pattern: 'leaked', output_mode: 'content' }, ctx);
        expect(r.content).toBe('No matches for /leaked/.');
      } finally {
        await removeDir(outside);
      }
    });
    it('reports an invalid regular expression as an input error', async () => {
      expect(await grepTool.execute({ pattern: '(' }, ctx)).toMatchObject({ isError: true, code: ErrorCodes.toolInputInvalid });
    });
  });
});
