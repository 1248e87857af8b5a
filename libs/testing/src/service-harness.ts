import { randomBytes } from 'node:crypto';

/** A NATS subject namespace of its own for one service harness: `<prefix>-<label>-<random>`. */
export const harnessNamespace = (prefix: string, label: string): string =>
  `${prefix}-${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 12)}-${randomBytes(3).toString('hex')}`;
