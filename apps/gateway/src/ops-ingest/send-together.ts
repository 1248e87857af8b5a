import { AsyncResource } from 'node:async_hooks';

/**
 * Starts `send` at the end of the event-loop turn, together with every other send queued in that
 * turn, each in its caller's async context (its trace). The NATS client writes its outbound buffer
 * once per microtask checkpoint, so requests started from different HTTP requests' callbacks each
 * cost a socket write; started in one loop, they share one. ADR 0009 does the same for replies.
 */
export function sendTogether<T>(send: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push(AsyncResource.bind(() => void send().then(resolve, reject)));
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  });
}

const queue: Array<() => void> = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  for (const start of queue.splice(0)) start();
}
