import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { ErrorCodes } from '@headspace/contracts';
import { grepTool } from './grep-tool';
import { capList, capText, joinRel, listFiles, MAX_LINE_CHARS } from './listing';
import { openInWorkspace, resolveInWorkspace, type OpenedWorkspaceFile, type OpenMode } from './paths';
import { relativeGlob } from './relative-glob';
import { defineTool, fail, ok, type ToolResult } from './types';

export { capText, MAX_LINE_CHARS, MAX_RESULT_CHARS } from './listing';
export * from './grep-tool';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_FILE_BYTES = 20 * 1024 * 1024;

const filePath = z.string().min(1).describe('Path of the file, relative to the workspace root (or absolute inside it).');

const isErrno = (e: unknown, ...codes: string[]) => codes.includes((e as NodeJS.ErrnoException)?.code ?? '');

function notFound(p: string): ToolResult {
  return fail(ErrorCodes.toolFileNotFound, `File not found: ${p}`);
}

/**
 * Opens a file race-free (see openInWorkspace), runs `use` on it and closes it. A missing file or
 * a directory becomes the tool error the model can act on.
 */
async function withFile(root: string, target: string, mode: OpenMode, use: (f: OpenedWorkspaceFile) => Promise<ToolResult>): Promise<ToolResult> {
  let f: OpenedWorkspaceFile;
  try {
    f = await openInWorkspace(root, target, mode);
  } catch (e) {
    if (!isErrno(e, 'ENOENT', 'ENOTDIR', 'EISDIR')) throw e;
    const { relative } = await resolveInWorkspace(root, target);
    return isErrno(e, 'EISDIR') ? fail(ErrorCodes.toolInputInvalid, `${relative} is a directory.`) : notFound(relative);
  }
  try {
    const st = await f.handle.stat();
    if (st.isDirectory()) return fail(ErrorCodes.toolInputInvalid, `${f.relative} is a directory${mode === 'read' ? '; use Glob to list it' : ''}.`);
    if (!st.isFile()) return fail(ErrorCodes.toolInputInvalid, `${f.relative} is not a regular file.`);
    return await use(f);
  } finally {
    await f.handle.close();
  }
}

/** Replaces the whole content of an open file through its fd (the checked file, not a path). */
async function rewrite(handle: FileHandle, text: string): Promise<void> {
  const buf = Buffer.from(text, 'utf8');
  await handle.truncate(0);
  // Positional writes: reading the file first moved the fd's offset to its old end.
  for (let at = 0; at < buf.length; ) at += (await handle.write(buf, at, buf.length - at, at)).bytesWritten;
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
    return withFile(ctx.workspaceRoot, input.file_path, 'read', async ({ handle, relative }) => {
      const size = (await handle.stat()).size;
      if (size > READ_MAX_FILE_BYTES) return fail(ErrorCodes.toolInputInvalid, `${relative} is too large to read (${size} bytes); use Grep to find the part you need.`);
      return numbered(await handle.readFile(), relative, input.offset, input.limit);
    });
  },
});

function numbered(buf: Buffer, relative: string, offset: number | undefined, limitLines: number | undefined): ToolResult {
  if (buf.subarray(0, 8000).includes(0)) return fail(ErrorCodes.toolInputInvalid, `${relative} is a binary file (${buf.length} bytes) and cannot be shown as text.`);
  const text = buf.toString('utf8');
  if (text.length === 0) return ok(`(${relative} is empty)`);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const start = (offset ?? 1) - 1;
  const limit = limitLines ?? READ_DEFAULT_LIMIT;
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
}

export const writeTool = defineTool({
  name: 'Write',
  description: 'Create or overwrite a file of the workspace with the given content (parent directories are created).',
  schema: z.strictObject({ file_path: filePath, content: z.string().describe('The full new content of the file.') }),
  access: (input) => ({ writes: [input.file_path] }),
  async execute(input, ctx) {
    return withFile(ctx.workspaceRoot, input.file_path, 'write', async ({ handle, relative, created }) => {
      await rewrite(handle, input.content);
      const lines = input.content.length === 0 ? 0 : input.content.split('\n').length;
      return ok(`${created ? 'Created' : 'Overwrote'} ${relative} (${lines} lines).`, [relative]);
    });
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
    return withFile(ctx.workspaceRoot, input.file_path, 'update', async ({ handle, relative }) => {
      const applied = applyEdit(await handle.readFile('utf8'), input, relative);
      if ('isError' in applied) return applied;
      await rewrite(handle, applied.text);
      const count = applied.count;
      return ok(`Edited ${relative}: replaced ${count} occurrence${count === 1 ? '' : 's'}.`, [relative]);
    });
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
    return withFile(ctx.workspaceRoot, input.file_path, 'update', async ({ handle, relative }) => {
      let text = await handle.readFile('utf8');
      let total = 0;
      for (const [i, edit] of input.edits.entries()) {
        const applied = applyEdit(text, edit, relative);
        if ('isError' in applied) return { ...applied, content: `Edit ${i + 1} of ${input.edits.length} failed; nothing was changed. ${applied.content}` };
        text = applied.text;
        total += applied.count;
      }
      await rewrite(handle, text);
      return ok(`Edited ${relative}: ${input.edits.length} edits, ${total} replacements.`, [relative]);
    });
  },
});

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
    const found = await listFiles(dir.absolute, [input.pattern], ctx.workspaceRoot);
    if (found === 'not-a-directory') return fail(ErrorCodes.toolFileNotFound, `Directory not found: ${dir.relative}`);
    const rel = found.map((f) => joinRel(dir.relative, f));
    if (rel.length === 0) return ok(`No files match ${input.pattern}.`);
    return ok(capList(rel, 1000));
  },
});

export const fileTools = [readTool, writeTool, editTool, multiEditTool, globTool, grepTool] as const;
