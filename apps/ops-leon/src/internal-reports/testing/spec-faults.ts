import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { defineCommand } from '@headspace/contracts';
import { z } from 'zod';

/** Two bugs a spec can set off in a real service process: a handler that throws a TypeError, and a promise nobody awaits. */
export const failUnexpectedly = defineCommand({ service: 'team-manager', name: 'spec-fail-unexpectedly', request: z.object({}), response: z.object({}) });
export const rejectUnhandled = defineCommand({ service: 'team-manager', name: 'spec-reject-unhandled', request: z.object({}), response: z.object({ scheduled: z.boolean() }) });

class InvoiceError extends Error {}

function discountOf(order: { discount?: { rate: number } } | undefined): number {
  return order!.discount!.rate;
}

async function settleInvoice(): Promise<void> {
  throw new InvoiceError('invoice 77 was settled twice');
}

@Controller()
export class SpecFaultsController {
  @MessagePattern(failUnexpectedly)
  fail() {
    return { rate: discountOf(undefined) };
  }

  @MessagePattern(rejectUnhandled)
  reject() {
    setTimeout(() => void settleInvoice(), 20);
    return { scheduled: true };
  }
}
