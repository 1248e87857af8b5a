import { createHash } from 'node:crypto';

// eslint-disable-next-line no-control-regex -- colour codes out: test runners colour their failures
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
/** Lines that name a failure; when none does, the output's last lines stand for it. */
const FAILURE_LINE = /error|fail|assert|expected|exception|panic|cannot|undefined|not found|timed out/i;

/**
 * One line with what varies between two runs of the same failure taken out: ISO times and
 * clock times, hex ids and hashes, absolute paths (checkouts and temp directories differ per
 * iteration), and every number (pids, durations, line:column), so that only the error's words
 * and shape are left.
 */
export function normaliseFailureLine(line: string): string {
  return line
    .replace(ANSI, '')
    .replace(/\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?/g, '<time>')
    .replace(/\b\d{1,2}:\d{2}(:\d{2})?(\.\d+)?\b/g, '<time>')
    .replace(/\b(0x)?[0-9a-f]{7,}\b/gi, '<hex>')
    .replace(/(\/[\w.@+-]+)+/g, '<path>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The signature of a failed check: its failure lines (or its last five lines) normalised,
 * de-duplicated in order, hashed to 16 hex characters. The same error across iterations gives
 * the same signature; an empty output has one too (a command failing silently the same way).
 */
export function errorSignature(output: string): string {
  const lines = output.split('\n').map(normaliseFailureLine).filter(Boolean);
  const failing = lines.filter((l) => FAILURE_LINE.test(l));
  const picked = [...new Set(failing.length ? failing : lines.slice(-5))].slice(0, 20);
  return createHash('sha256').update(picked.join('\n')).digest('hex').slice(0, 16);
}
