import type { NotificationPayload } from '@headspace/contracts';

/** The JSON a `headspace`-format webhook receives. */
export function headspaceBody(deliveryId: string, p: NotificationPayload): Record<string, unknown> {
  return { type: 'ops.group.transition', deliveryId, ...p };
}

/** One line for people: Slack's `text`, the email's subject. */
export function summaryLine(p: NotificationPayload): string {
  const severity = p.severity ? `[${p.severity}] ` : '';
  const change = p.from ? `${p.from} → ${p.to}` : p.to;
  return `${severity}${p.project}: ${p.title ?? p.groupId} (${change})`;
}

/** Slack incoming-webhook body: `text` as the fallback, `blocks` for the rich message. */
export function slackBody(p: NotificationPayload): Record<string, unknown> {
  const text = summaryLine(p);
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(text)}*${p.reason ? `\n${escapeSlack(p.reason)}` : ''}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: escapeSlack(`group ${p.groupId} · ${p.eventType} · ${p.occurredAt}`) }] },
    ],
  };
}

export function emailText(p: NotificationPayload): string {
  return [
    summaryLine(p),
    '',
    `Project:  ${p.project}`,
    `Group:    ${p.groupId}`,
    `Severity: ${p.severity ?? 'unknown'}`,
    `State:    ${p.from ?? '(new)'} → ${p.to}`,
    ...(p.reason ? [`Reason:   ${p.reason}`] : []),
    `At:       ${p.occurredAt}`,
  ].join('\n');
}

// Slack's mrkdwn control characters (https://api.slack.com/reference/surfaces/formatting#escaping).
const escapeSlack = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
