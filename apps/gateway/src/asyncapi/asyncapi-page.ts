import type { EventDefinition } from '@headspace/contracts';
import { messageKey } from './asyncapi-document';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A self-contained page (no CDN, no script) listing every event, its subject and version; schemas are in /api/asyncapi.json. */
export function renderAsyncApiPage(events: readonly EventDefinition[], document: Record<string, unknown>): string {
  const messages = (document.components as { messages: Record<string, { examples: Array<{ payload: unknown }> }> }).messages;
  const services = [...new Set(events.map((e) => e.service))];
  const sections = services
    .map((service) => {
      const rows = events
        .filter((e) => e.service === service)
        .map((e) => {
          const example = JSON.stringify((messages[messageKey(e)].examples[0].payload as { data: unknown }).data, null, 1);
          return `<tr id="${escape(messageKey(e))}"><td><code>headspace.${escape(e.type)}</code></td><td>${e.schemaVersion}</td><td><code>${escape(e.subject)}</code></td><td><details><summary>example data</summary><pre>${escape(example)}</pre></details></td></tr>`;
        })
        .join('\n');
      return `<h2>${escape(service)}</h2>\n<table><tr><th>CloudEvent type</th><th>Version</th><th>NATS subject</th><th>Data</th></tr>\n${rows}\n</table>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Headspace events</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}pre{margin:0;font-size:12px}</style>
</head><body>
<h1>Headspace events</h1>
<p>Machine-readable: <a href="/api/asyncapi.json">/api/asyncapi.json</a> (AsyncAPI 3.0, with every schema). REST API: <a href="/api/docs">/api/docs</a>.</p>
<p>Channels: the live stream <code>GET /api/v1/stream</code> (Server-Sent Events, bearer token) and, inside a deployment, one NATS JetStream subject per event type.
Over SSE and webhooks an event is a CloudEvent 1.0: <code>id</code> (the event id), <code>source</code> <code>/headspace/&lt;service&gt;</code>, <code>type</code>,
<code>subject</code> (its stream), <code>time</code>, <code>traceparent</code>, <code>dataschema</code> <code>#/components/messages/&lt;type&gt;.v&lt;n&gt;</code>,
<code>hsposition</code> (resume from here) and <code>data</code>. A schema change comes with a new version.</p>
${sections}
</body></html>`;
}
