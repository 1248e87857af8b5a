import type { InboxMessage } from '@headspace/contracts';

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/**
 * The unread queue as the next inference sees it (seed 004 F3): one
 * `<teammate-message teammate_id="…" type="…" summary="…">body</teammate-message>` block per message.
 * Attributes and body are XML-escaped, so a message can neither break out of its block nor forge
 * another teammate's. A lead's summary-only copy of a peer DM has no body: it says who wrote to whom.
 */
export function renderTeammateMessage(message: InboxMessage): string {
  const attributes: Array<[string, string | undefined]> = [
    ['teammate_id', message.from],
    ['type', message.visibility === 'summary' ? 'peer_dm_summary' : message.type],
    ['summary', message.summary],
    ['to', message.peerTo],
    ['topic', message.topic],
    ['request_id', message.requestId],
    ['approve', message.approve === undefined ? undefined : String(message.approve)],
    ['reason', message.reason],
    ['suppress_auto_reply', message.suppressAutoReply ? 'true' : undefined],
  ];
  const attrs = attributes
    .filter((a): a is [string, string] => a[1] !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXml(value)}"`)
    .join('');
  const body = message.body ?? `${message.from} sent ${message.peerTo} a direct message (summary only).`;
  return `<teammate-message${attrs}>${escapeXml(body)}</teammate-message>`;
}

export const renderTeammateMessages = (messages: InboxMessage[]) => messages.map(renderTeammateMessage).join('\n');
