import type { StackFrame } from '@headspace/contracts';

/** At most this many frames are taken from raw stack text (the contract's own bound). */
const MAX_FRAMES = 200;

const V8_FRAME = /^\s*at (?:(?:async )?(?:new )?(.+?) \((.+?):(\d+):(\d+)\)|(?:async )?(.+?):(\d+):(\d+))\s*$/;
const GECKO_FRAME = /^\s*([^@\s]*)@(.+?):(\d+):(\d+)\s*$/;
const PYTHON_FRAME = /^\s*File "(.+?)", line (\d+), in (.+?)\s*$/;

/** Library and runtime code: not the application's own. */
const notInApp = (file: string) => /(?:^|[/\\])(?:node_modules|site-packages|dist-packages)[/\\]|^node:|^internal[/\\]|<frozen /.test(file);

/**
 * Frames from raw stack text when a client sent no structured ones: V8 (`at fn (file:1:2)`),
 * Firefox/Safari (`fn@file:1:2`) and Python tracebacks. Innermost frame last, as in the contract;
 * line and column kept (grouping ignores them). Unrecognised text gives no frames.
 */
export function parseStack(stack: string): StackFrame[] {
  const lines = stack.split(/\r?\n/);
  if (lines.some((line) => PYTHON_FRAME.test(line))) return pythonFrames(lines);
  const frames: StackFrame[] = [];
  for (const line of lines) {
    const v8 = V8_FRAME.exec(line);
    if (v8) {
      const [, fn, file, lineno, colno, bareFile, bareLine, bareCol] = v8;
      frames.push(frame(file ?? bareFile, Number(lineno ?? bareLine), Number(colno ?? bareCol), fn));
      continue;
    }
    const gecko = GECKO_FRAME.exec(line);
    if (gecko) frames.push(frame(gecko[2], Number(gecko[3]), Number(gecko[4]), gecko[1] || undefined));
  }
  // V8 and Gecko print the innermost frame first.
  return frames.slice(0, MAX_FRAMES).reverse();
}

function pythonFrames(lines: string[]): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of lines) {
    const match = PYTHON_FRAME.exec(line);
    if (match) frames.push(frame(match[1], Number(match[2]), undefined, match[3]));
  }
  // Python prints the innermost frame last already; keep the innermost ones when there are too many.
  return frames.slice(-MAX_FRAMES);
}

function frame(file: string, lineno: number, colno: number | undefined, fn: string | undefined): StackFrame {
  return {
    filename: file.slice(0, 1_024),
    ...(fn && fn !== '<anonymous>' ? { function: fn.slice(0, 512) } : {}),
    ...(Number.isSafeInteger(lineno) && lineno <= 10_000_000 ? { lineno } : {}),
    ...(colno !== undefined && Number.isSafeInteger(colno) && colno <= 10_000_000 ? { colno } : {}),
    inApp: !notInApp(file),
  };
}
