import type { Msg, MsgHdrs } from '@nats-io/nats-core';

/**
 * Replies wait for the end of the event-loop turn and go out together: the NATS client writes its
 * outbound buffer once per microtask checkpoint, so replies finished in different microtasks each
 * cost a socket write of their own, a system call per reply under load. Sent from one
 * `setImmediate`, every reply finished in the same turn shares one write; alone, a reply waits only
 * for the rest of the turn.
 */
const queue: Array<{ msg: Msg; payload: Uint8Array; headers?: MsgHdrs; sent: () => void }> = [];
let scheduled = false;

export function respondSoon(msg: Msg, payload: Uint8Array, headers?: MsgHdrs): Promise<void> {
  return new Promise((sent) => {
    queue.push({ msg, payload, headers, sent });
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  });
}

function flush(): void {
  scheduled = false;
  for (const { msg, payload, headers, sent } of queue.splice(0)) {
    try {
      msg.respond(payload, headers ? { headers } : undefined);
    } catch {
      // The connection is closing: the caller's request times out, as it would have anyway.
    }
    sent();
  }
}
