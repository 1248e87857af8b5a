// An application using the real @sentry/node SDK with a Headspace DSN (SENTRY_DSN). It captures
// the same bug for two orders (different ids in the message: one group, count 2), a message, and
// then crashes on an uncaught error, which the SDK's onUncaughtException integration reports and
// flushes before exiting 1.
import { setTimeout } from 'node:timers';
import * as Sentry from '@sentry/node';

Sentry.init({ dsn: process.env.SENTRY_DSN, environment: 'e2e', release: 'sdk-app@1.0.0', tracesSampleRate: 0, shutdownTimeout: 5_000 });

class CardMissingError extends Error {
  name = 'CardMissingError';
}

function chargeCard(order) {
  if (!order.card) throw new CardMissingError(`order ${order.id} has no card on file`);
  return order.card.number;
}

for (const id of [17, 42]) {
  try {
    chargeCard({ id });
  } catch (error) {
    Sentry.captureException(error, { tags: { order: String(id) } });
  }
}
Sentry.captureMessage('payment provider slow: 1834 ms', 'warning');
await Sentry.flush(5_000);

function settle(batch) {
  return batch.items.length; // uncaught: crashes the process
}
setTimeout(() => settle({}), 0);
