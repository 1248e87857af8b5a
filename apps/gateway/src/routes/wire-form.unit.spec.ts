import { usdAmountSchema } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { wireForm } from './wire-form';

const schema = z.object({
  limitUsd: usdAmountSchema.optional(),
  period: z.enum(['none', 'day']).default('none'),
  scope: z.object({ team: z.string() }),
  items: z.array(z.object({ amount: usdAmountSchema })),
});
const send = (raw: unknown) => wireForm(raw, schema.parse(raw));

describe('the wire form of a request', () => {
  it('keeps what the client wrote, untransformed, so parsing it again gives the same meaning', () => {
    const raw = { limitUsd: '10.00', scope: { team: 'alpha' }, items: [{ amount: 1.5 }] };
    expect(send(raw)).toEqual(raw);
    expect(schema.parse(send(raw))).toEqual(schema.parse(raw));
  });

  it('leaves defaults to the serving side and drops keys the schema drops, at any depth', () => {
    const raw = { scope: { team: 'alpha', role: 'root' }, items: [{ amount: '1', extra: true }], junk: 1 };
    expect(send(raw)).toEqual({ scope: { team: 'alpha' }, items: [{ amount: '1' }] });
  });
});
