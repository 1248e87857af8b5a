import { mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { glob as tinyglob } from 'tinyglobby';
import { z } from 'zod';
import { ErrorCodes } from '@headspace/contracts';
import { resolveInWorkspace } from './paths';
import { defineTool, fail, ok, type ToolResult } from './types';

export const READ_DEFAULT_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
export const MAX_RESULT_CHARS = 30_000;
const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
export const READ_MAX_FILE_BYTES = 20 * 1024 * 1024;
const DEFAULT_IGNORE = ['**/node_modules/**', '**/.git/**'];

const filePath = z.string().min(1).describe('Path of the file, relative to the workspace root (or absolute inside it).');

const isErrno = (e: unknown, ...codes: string[]) => codes.includes((e as NodeJS.ErrnoException)?.code ?? '');

function notFound(p: string): ToolResult {
  return fail(ErrorCodes.toolFileNotFound, `File not found: ${p}`);
}

/** Caps text at `max` characters with a note saying how much was left out. */
export function capText(text: string, max = MAX_RESULT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} of ${text.length} characters not shown]`;
}

export const readTool = defineTool({
  name: 'Read',
  description: 'Read a text file of the workspace. Returns lines numbered like `cat -n`. Use offset/limit for large files.',
  readOnly: true,
  schema: z.strictObject({
    file_path: filePath,
    offset: z.number().int().min(1).optional().describe('1-based line to start at.'),
    limit: z.number().int().min(1).max(10_000).optional().describe(`Number of lines to read (default ${READ_DEFAULT_LIMIT}).`),
  }),
  access: (input) => ({ reads: [input.file_path] }),
  async execute(input, ctx) {
    const { absolute, relative } = await resolveInWorkspace(ctx.workspaceRoot, input.file_path);
    let buf: Buffer;
    try {
      const size = (await stat(absolute)).size;
      if (size > READ_MAX_FILE_BYTES) return fail(ErrorCodes.toolInputInvalid, `${relative} is too large to read (${size} bytes); use Grep to find the part you need.`);
      buf = await readFile(absolute);
    } catch (e) {
      if (isErrno(e, 'ENOENT', 'ENOTDIR')) return notFound(relative);
      if (isErrno(e, 'EISDIR')) return fail(ErrorCodes.toolInputInvalid, `${relative} is a directory; use Glob to list it.`);
      throw e;
    }
    if (buf.subarray(0, 8000).includes(0)) return fail(ErrorCodes.toolInputInvalid, `${relative} is a binary file (${buf.length} bytes) and cannot be shown as text.`);
    const text = buf.toString('utf8');
    if (text.length === 0) return ok(`(${relative} is empty)`);
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const start = (input.offset ?? 1) - 1;
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const slice = lines.slice(start, start + limit);
    const body = slice
      .map((line, i) => {
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]` : line;
        return `${String(start + i + 1).padStart(6)}\t${shown}`;
      })
      .join('\n');
    const rest = lines.length - (start + slice.length);
    const note = rest > 0 ? `\n[${rest} more lines; read on with offset ${start + slice.length + 1}]` : '';
    return ok(capText(body + note));
  },
});

export const writeTool = defineTool({
  name: 'Write',
  description: 'Create or overwrite a file of the workspace with the given content (parent directories are created).',
  schema: z.strictObject({ file_path: filePath, content: z.string().describe('The full new content of the file.') }),
  access: (input) => ({ writes: [input.file_path] }),
  async execute(input, ctx) {
    const { absolute, relative } = await resolveInWorkspace(ctx.workspaceRoot, input.file_path);
    const st = await stat(absolute).catch((e: unknown) => {
      if (isErrno(e, 'ENOENT')) return undefined;
      throw e;
    });
    if (st?.isDirectory()) return fail(ErrorCodes.toolInputInvalid, `${relative} is a directory.`);
    const existed = st !== undefined;
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, input.content, 'utf8');
    const lines = input.content.length === 0 ? 0 : input.content.split('\n').length;
    return ok(`${existed ? 'Overwrote' : 'Created'} ${relative} (${lines} lines).`, [relative]);
  },
});

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

export const editTool = defineTool({
  name: 'Edit',
  description:
    'Replace an exact string in a file. old_string must occur exactly once unless replace_all is true; include enough surrounding text to make it unique.',
  schema: z.strictObject({
    file_path: filePath,
    old_string: z.string().min(1).describe('The exact text to replace (whitespace included).'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence (default false).'),
  }),
  access: (input) => ({ writes: [input.file_path] }),
  async execute(input, ctx) {
    if (input.old_string === input.new_string) return fail(ErrorCodes.toolInputInvalid, 'old_string and new_string are identical; nothing to change.');
    const { absolute, relative } = await resolveInWorkspace(ctx.workspaceRoot, input.file_path);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch (e) {
      if (isErrno(e, 'ENOENT', 'ENOTDIR')) return notFound(relative);
      if (isErrno(e, 'EISDIR')) return fail(ErrorCodes.toolInputInvalid, `${relative} is a directory.`);
      throw e;
    }
    const applied = applyEdit(text, input, relative);
    if ('isError' in applied) return applied;
    await writeFile(absolute, applied.text, 'utf8');
    const count = applied.count;
    return ok(`Edited ${relative}: replaced ${count} occurrence${count === 1 ? '' : 's'}.`, [relative]);
  },
});

const editSpec = z.strictObject({
  old_string: z.string().min(1).describe('The exact text to replace (whitespace included).'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence (default false).'),
});

/** Applies one exact-string edit to `text`, or says why it cannot. */
export function applyEdit(text: string, edit: z.output<typeof editSpec>, relative: string): { text: string; count: number } | ToolResult {
  if (edit.old_string === edit.new_string) return fail(ErrorCodes.toolInputInvalid, 'old_string and new_string are identical; nothing to change.');
  const count = countOccurrences(text, edit.old_string);
  if (count === 0) return fail(ErrorCodes.toolEditNoMatch, `old_string was not found in ${relative}. Read the file and copy the text exactly, whitespace included.`);
  if (count > 1 && !edit.replace_all) {
    return fail(ErrorCodes.toolEditAmbiguous, `old_string occurs ${count} times in ${relative}. Add surrounding context to make it unique, or set replace_all to true.`);
  }
  const updated = edit.replace_all ? text.split(edit.old_string).join(edit.new_string) : text.replace(edit.old_string, () => edit.new_string);
  return { text: updated, count };
}

export const multiEditTool = defineTool({
  name: 'MultiEdit',
  description: 'Apply several exact-string edits to one file, in order, all or nothing (same rules as Edit for each).',
  schema: z.strictObject({ file_path: filePath, edits: z.array(editSpec).min(1).max(100) }),
  access: (input) => ({ writes: [input.file_path] }),
  async execute(input, ctx) {
    const { absolute, relative } = await resolveInWorkspace(ctx.workspaceRoot, input.file_path);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch (e) {
      if (isErrno(e, 'ENOENT', 'ENOTDIR')) return notFound(relative);
      if (isErrno(e, 'EISDIR')) return fail(ErrorCodes.toolInputInvalid, `${relative} is a directory.`);
      throw e;
    }
    let total = 0;
    for (const [i, edit] of input.edits.entries()) {
      const applied = applyEdit(text, edit, relative);
      if ('isError' in applied) return { ...applied, content: `Edit ${i + 1} of ${input.edits.length} failed; nothing was changed. ${applied.content}` };
      text = applied.text;
      total += applied.count;
    }
    await writeFile(absolute, text, 'utf8');
    return ok(`Edited ${relative}: ${input.edits.length} edits, ${total} replacements.`, [relative]);
  },
});

/** Glob patterns must stay relative and inside the search directory. */
const relativeGlob = z
  .string()
  .min(1)
  .refine((g) => !path.isAbsolute(g) && !g.split('/').includes('..'), 'must be relative and must not contain ".." segments');

export const globTool = defineTool({
  name: 'Glob',
  description: 'Find files of the workspace by glob pattern (e.g. "src/**/*.ts"). Returns workspace-relative paths, sorted.',
  readOnly: true,
  schema: z.strictObject({
    pattern: relativeGlob.describe('Glob pattern, relative to path.'),
    path: z.string().min(1).optional().describe('Directory to search in (default: the workspace root).'),
  }),
  access: (input) => ({ reads: [input.path ?? '.'] }),
  async execute(input, ctx) {
    const dir = await resolveInWorkspace(ctx.workspaceRoot, input.path ?? '.');
    const found = await listFiles(dir.absolute, [input.pattern]);
    if (found === 'not-a-directory') return fail(ErrorCodes.toolFileNotFound, `Directory not found: ${dir.relative}`);
    const rel = found.map((f) => joinRel(dir.relative, f));
    if (rel.length === 0) return ok(`No files match ${input.pattern}.`);
    return ok(capList(rel, 1000));
  },
});

function joinRel(base: string, p: string): string {
  return base === '.' ? p : `${base}/${p}`;
}

function capList(items: string[], max: number): string {
  const shown = items.slice(0, max);
  const note = items.length > max ? `\n[${items.length - max} more results not shown; narrow the search]` : '';
  return capText(shown.join('\n') + note);
}

async function listFiles(dirAbs: string, patterns: string[]): Promise<string[] | 'not-a-directory'> {
  const isDir = await stat(dirAbs).then((s) => s.isDirectory(), () => false);
  if (!isDir) return 'not-a-directory';
  const files = await tinyglob(patterns, {
    cwd: dirAbs,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: DEFAULT_IGNORE,
    expandDirectories: false,
  });
  return files.sort();
}

export const grepModes = ['files_with_matches', 'content', 'count'] as const;

export const grepTool = defineTool({
  name: 'Grep',
  description:
    'Search file contents with a regular expression (JavaScript syntax). output_mode: files_with_matches (default), content (matching lines as path:line:text), or count.',
  readOnly: true,
  schema: z.strictObject({
    pattern: z.string().min(1).max(1000).describe('Regular expression to search for.'),
    path: z.string().min(1).optional().describe('File or directory to search (default: the workspace root).'),
    glob: relativeGlob.optional().describe('Only search files matching this glob (e.g. "**/*.ts").'),
    output_mode: z.enum(grepModes).optional(),
    case_insensitive: z.boolean().optional(),
    context: z.number().int().min(0).max(20).optional().describe('Lines of context around each match (content mode).'),
    head_limit: z.number().int().min(1).max(5000).optional().describe('At most this many output lines/entries (default 250).'),
  }),
  access: (input) => ({ reads: [input.path ?? '.'] }),
  async execute(input, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(input.pattern, input.case_insensitive ? 'i' : '');
    } catch (e) {
      return fail(ErrorCodes.toolInputInvalid, `Invalid regular expression: ${(e as Error).message}`);
    }
    const target = await resolveInWorkspace(ctx.workspaceRoot, input.path ?? '.');
    const st = await stat(target.absolute).catch(() => undefined);
    if (!st) return fail(ErrorCodes.toolFileNotFound, `Path not found: ${target.relative}`);
    let files: Array<{ abs: string; rel: string }>;
    if (st.isFile()) {
      files = [{ abs: target.absolute, rel: target.relative }];
    } else {
      const listed = await listFiles(target.absolute, [input.glob ?? '**/*']);
      files = listed === 'not-a-directory' ? [] : listed.map((f) => ({ abs: path.join(target.absolute, f), rel: joinRel(target.relative, f) }));
    }
    const mode = input.output_mode ?? 'files_with_matches';
    const limit = input.head_limit ?? 250;
    const ctxLines = input.context ?? 0;
    const out: string[] = [];
    let total = 0;
    const rootReal = await realpath(ctx.workspaceRoot);
    for (const file of files) {
      // A symlinked file may point outside the workspace: never read through it.
      const real = await realpath(file.abs).catch(() => undefined);
      if (!real || (real !== rootReal && !real.startsWith(rootReal + path.sep))) continue;
      const size = await stat(file.abs).then((s) => s.size, () => -1);
      if (size < 0 || size > GREP_MAX_FILE_BYTES) continue;
      const buf = await readFile(file.abs).catch(() => undefined);
      if (!buf || buf.subarray(0, 8000).includes(0)) continue;
      const lines = buf.toString('utf8').split('\n');
      const hits: number[] = [];
      lines.forEach((line, i) => {
        if (re.test(line.length > 10_000 ? line.slice(0, 10_000) : line)) hits.push(i);
      });
      if (hits.length === 0) continue;
      if (mode === 'files_with_matches') {
        total++;
        out.push(file.rel);
      } else if (mode === 'count') {
        total++;
        out.push(`${file.rel}:${hits.length}`);
      } else {
        const shown = new Set<number>();
        for (const h of hits) for (let i = Math.max(0, h - ctxLines); i <= Math.min(lines.length - 1, h + ctxLines); i++) shown.add(i);
        let prev = -2;
        for (const i of [...shown].sort((a, b) => a - b)) {
          if (ctxLines > 0 && prev >= 0 && i !== prev + 1) out.push('--');
          const text = lines[i].length > MAX_LINE_CHARS ? `${lines[i].slice(0, MAX_LINE_CHARS)}… [line truncated]` : lines[i];
          out.push(`${file.rel}:${i + 1}${hits.includes(i) ? ':' : '-'}${text}`);
          prev = i;
        }
        total += hits.length;
      }
    }
    if (out.length === 0) return ok(`No matches for /${input.pattern}/.`);
    return ok(capList(out, limit) + (mode === 'content' ? '' : `\n(${total} file${total === 1 ? '' : 's'})`));
  },
});

export const fileTools = [readTool, writeTool, editTool, multiEditTool, globTool, grepTool] as const;
