import { RE2JS, RE2JSException } from 're2js';
import { z } from 'zod';
import { ErrorCodes } from '@headspace/contracts';
import { capList, joinRel, listFiles, MAX_LINE_CHARS } from './listing';
import { openInWorkspace, resolveInWorkspace } from './paths';
import { relativeGlob } from './relative-glob';
import { defineTool, fail, ok, type ToolResult } from './types';

const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_MATCHED_LINE_CHARS = 10_000;
/** Default total time of one Grep call; `HS_GREP_TIME_LIMIT_MS` overrides it. */
export const GREP_DEFAULT_TIME_LIMIT_MS = 10_000;
/** Characters matched between two looks at the clock (and two turns of the event loop). */
const SLICE_CHARS = 256 * 1024;

export const grepModes = ['files_with_matches', 'content', 'count'] as const;

export interface GrepToolOptions {
  /** Total time one call may take; default HS_GREP_TIME_LIMIT_MS, else 10 s. */
  timeLimitMs?: number;
}

/** Why RE2 refuses a pattern, in words an agent can act on. */
function unsupported(pattern: string, e: unknown): ToolResult {
  const detail = e instanceof RE2JSException ? e.message : String(e);
  const hint = /\(\?<?[=!]/.test(pattern)
    ? ' Lookahead and lookbehind are not supported.'
    : /\\[1-9]|\\k</.test(pattern)
      ? ' Backreferences are not supported.'
      : '';
  return fail(
    ErrorCodes.toolInputInvalid,
    `pattern: not a regular expression Grep can run (${detail}).${hint} Grep uses a linear-time engine (RE2 syntax: no lookaround, no backreferences); search for a simpler pattern and filter the lines it finds.`,
  );
}

/** Compiles a JavaScript-style pattern with RE2 (linear time, no catastrophic backtracking). */
export function compileGrepPattern(pattern: string, caseInsensitive = false): RE2JS | ToolResult {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern), caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (e) {
    return unsupported(pattern, e);
  }
}

function timeLimitOf(options: GrepToolOptions): number {
  if (options.timeLimitMs !== undefined) return options.timeLimitMs;
  const fromEnv = Number(process.env.HS_GREP_TIME_LIMIT_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : GREP_DEFAULT_TIME_LIMIT_MS;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Grep over the workspace: RE2 (re2js, pure JS) so matching is linear in the input whatever the
 * pattern, every file opened race-free inside the workspace, and one time limit for the whole
 * call (TOOL.TIMEOUT). The event loop gets a turn every SLICE_CHARS matched characters.
 */
export function createGrepTool(options: GrepToolOptions = {}) {
  return defineTool({
    name: 'Grep',
    description:
      'Search file contents with a regular expression (RE2 syntax, like JavaScript without lookaround or backreferences). output_mode: files_with_matches (default), content (matching lines as path:line:text), or count.',
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
      const limitMs = timeLimitOf(options);
      const deadline = Date.now() + limitMs;
      const re = compileGrepPattern(input.pattern, input.case_insensitive);
      if (!(re instanceof RE2JS)) return re;
      const target = await resolveInWorkspace(ctx.workspaceRoot, input.path ?? '.');
      const files = await filesToSearch(ctx.workspaceRoot, target, input.glob);
      if (files === undefined) return fail(ErrorCodes.toolFileNotFound, `Path not found: ${target.relative}`);
      const mode = input.output_mode ?? 'files_with_matches';
      const ctxLines = input.context ?? 0;
      const out: string[] = [];
      let total = 0;
      let sinceYield = 0;
      const timedOut = () =>
        fail(ErrorCodes.toolTimeout, `Grep stopped: the search took longer than its ${limitMs} ms limit. Narrow it with path or glob, or use a more specific pattern.`);
      for (const file of files) {
        if (Date.now() > deadline) return timedOut();
        const lines = await readSearchable(ctx.workspaceRoot, file.rel);
        if (lines === undefined) continue;
        const hits: number[] = [];
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i].length > MAX_MATCHED_LINE_CHARS ? lines[i].slice(0, MAX_MATCHED_LINE_CHARS) : lines[i];
          if (re.test(line)) hits.push(i);
          sinceYield += line.length + 1;
          if (sinceYield >= SLICE_CHARS) {
            sinceYield = 0;
            if (Date.now() > deadline) return timedOut();
            await yieldToLoop();
          }
        }
        if (hits.length === 0) continue;
        total += mode === 'content' ? hits.length : 1;
        if (mode === 'files_with_matches') out.push(file.rel);
        else if (mode === 'count') out.push(`${file.rel}:${hits.length}`);
        else out.push(...contentLines(file.rel, lines, hits, ctxLines));
      }
      if (out.length === 0) return ok(`No matches for /${input.pattern}/.`);
      return ok(capList(out, input.head_limit ?? 250) + (mode === 'content' ? '' : `\n(${total} file${total === 1 ? '' : 's'})`));
    },
  });
}

async function filesToSearch(root: string, target: { absolute: string; relative: string }, glob: string | undefined): Promise<Array<{ rel: string }> | undefined> {
  const opened = await openInWorkspace(root, target.relative, 'read').catch(() => undefined);
  if (!opened) return undefined;
  const st = await opened.handle.stat().finally(() => opened.handle.close());
  if (st.isFile()) return [{ rel: target.relative }];
  const listed = await listFiles(target.absolute, [glob ?? '**/*'], root);
  return listed === 'not-a-directory' ? [] : listed.map((f) => ({ rel: joinRel(target.relative, f) }));
}

/** The lines of a text file, read through a race-free open; undefined for what Grep skips. */
async function readSearchable(root: string, rel: string): Promise<string[] | undefined> {
  const opened = await openInWorkspace(root, rel, 'read').catch(() => undefined);
  if (!opened) return undefined;
  try {
    const st = await opened.handle.stat();
    if (!st.isFile() || st.size > GREP_MAX_FILE_BYTES) return undefined;
    const buf = await opened.handle.readFile();
    if (buf.subarray(0, 8000).includes(0)) return undefined;
    return buf.toString('utf8').split('\n');
  } finally {
    await opened.handle.close();
  }
}

function contentLines(rel: string, lines: string[], hits: number[], ctxLines: number): string[] {
  const out: string[] = [];
  const hitSet = new Set(hits);
  const shown = new Set<number>();
  for (const h of hits) for (let i = Math.max(0, h - ctxLines); i <= Math.min(lines.length - 1, h + ctxLines); i++) shown.add(i);
  let prev = -2;
  for (const i of [...shown].sort((a, b) => a - b)) {
    if (ctxLines > 0 && prev >= 0 && i !== prev + 1) out.push('--');
    const text = lines[i].length > MAX_LINE_CHARS ? `${lines[i].slice(0, MAX_LINE_CHARS)}… [line truncated]` : lines[i];
    out.push(`${rel}:${i + 1}${hitSet.has(i) ? ':' : '-'}${text}`);
    prev = i;
  }
  return out;
}

export const grepTool = createGrepTool();
