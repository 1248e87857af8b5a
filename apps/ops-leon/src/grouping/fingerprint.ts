import { createHash } from 'node:crypto';
import type { ExceptionReport, StackFrame } from '@headspace/contracts';
import { templateMessage } from './message-template';
import { parseStack } from './stack-parser';

export interface Grouping {
  /** 32 hex characters of sha256 over the parts. */
  fingerprint: string;
  /** The templated message: what the group is called. */
  title: string;
  /** The innermost in-app frame, `where in function`, or ''. */
  culprit: string;
  /** The frames grouped on (structured, or parsed from the raw stack). */
  frames: StackFrame[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Sentry's spelling of "Leon's own fingerprint" inside a client fingerprint. */
const DEFAULT_ENTRY = /^\{\{\s*default\s*\}\}$/;

/**
 * Where a frame's code is, stable across deploys: the module when given, else the file with
 * schemes, hosts, query strings and absolute directories removed (from `node_modules/` or
 * `site-packages/` on for libraries, else the last two segments) and bundle content hashes masked.
 */
export function frameLocation(frame: StackFrame): string {
  if (frame.module) return frame.module;
  let file = (frame.filename ?? frame.absPath ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/[?#].*$/, '');
  file = file.replace(/\\/g, '/');
  const library = /(?:^|\/)((?:node_modules|site-packages|dist-packages)\/.*)$/.exec(file);
  file = library ? library[1] : file.split('/').filter(Boolean).slice(-2).join('/');
  return file.replace(/([.-])[0-9a-f]{6,}(?=\.)/gi, '$1<hash>') || '?';
}

/** `async foo`, `Object.<anonymous>`, `new Foo` → the function's own name; lambdas' line-bound names dropped. */
const functionName = (fn: string | undefined) => (fn ?? '?').replace(/^(?:async|new) /, '').replace(/<lambda>.*$/, '<lambda>');

/** Unknown counts as in-app; with no in-app frame at all, every frame counts. */
export function groupingFrames(frames: StackFrame[]): StackFrame[] {
  const inApp = frames.filter((frame) => frame.inApp !== false);
  return inApp.length > 0 ? inApp : frames;
}

/** Leon's own parts: the type, the in-app frames (line numbers, columns and directories left out), the templated message. */
export function defaultParts(type: string, frames: StackFrame[], title: string): string[] {
  return [`type:${type}`, ...groupingFrames(frames).map((frame) => `frame:${frameLocation(frame)}:${functionName(frame.function)}`), `message:${title}`];
}

/** The group an exception belongs to. A client fingerprint wins; its `{{ default }}` entries stand for Leon's parts. */
export function groupingOf(report: Pick<ExceptionReport, 'type' | 'message' | 'frames' | 'stack' | 'fingerprint'>): Grouping {
  const frames = report.frames.length > 0 ? report.frames : report.stack ? parseStack(report.stack) : [];
  const title = templateMessage(report.message).slice(0, 500) || report.type;
  const own = defaultParts(report.type, frames, title);
  const parts = report.fingerprint ? ['client', ...report.fingerprint.flatMap((entry) => (DEFAULT_ENTRY.test(entry) ? own : [`value:${entry}`]))] : own;
  const innermost = groupingFrames(frames).at(-1);
  return {
    fingerprint: sha256(JSON.stringify(parts)).slice(0, 32),
    title,
    culprit: innermost ? `${frameLocation(innermost)} in ${functionName(innermost.function)}` : '',
    frames,
  };
}

/** The group of a fingerprint within a project: the same inputs always name the same group. */
export const groupIdOf = (projectId: string, fingerprint: string) => `grp_${sha256(`${projectId}\u0000${fingerprint}`).slice(0, 24)}`;
