import Table from 'cli-table3';
import pc from 'picocolors';

export interface Io {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

export const processIo: Io = { out: process.stdout, err: process.stderr };

export function printJson(io: Io, value: unknown): void {
  io.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

export type Column<T> = [header: string, cell: (row: T) => unknown];

const cellText = (v: unknown): string => (v === undefined || v === null || v === '' ? pc.dim('-') : Array.isArray(v) ? v.join(', ') || pc.dim('-') : String(v));

export function printTable<T>(io: Io, rows: T[], columns: Column<T>[], empty = 'Nothing to show.'): void {
  if (rows.length === 0) {
    io.out.write(`${pc.dim(empty)}\n`);
    return;
  }
  const table = new Table({ head: columns.map(([h]) => pc.bold(h)), style: { head: [], border: [] }, wordWrap: true });
  for (const row of rows) table.push(columns.map(([, cell]) => cellText(cell(row))));
  io.out.write(`${table.toString()}\n`);
}

/** Key/value view of one object. */
export function printRecord(io: Io, record: Record<string, unknown>): void {
  const table = new Table({ style: { head: [], border: [] }, wordWrap: true });
  for (const [k, v] of Object.entries(record)) {
    table.push({ [pc.bold(k)]: v !== null && typeof v === 'object' && !Array.isArray(v) ? JSON.stringify(v) : cellText(v) });
  }
  io.out.write(`${table.toString()}\n`);
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A spinner on stderr while `work` runs, only when stderr is a terminal (never in pipes or scripts). */
export async function withSpinner<T>(io: Io, label: string, work: () => Promise<T>): Promise<T> {
  if (!io.err.isTTY) return work();
  let i = 0;
  const draw = () => io.err.write(`\r${pc.cyan(FRAMES[i++ % FRAMES.length])} ${label}`);
  draw();
  const timer = setInterval(draw, 80);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    io.err.write(`\r${' '.repeat(label.length + 2)}\r`);
  }
}

export function success(io: Io, text: string): void {
  io.out.write(`${pc.green('✔')} ${text}\n`);
}
