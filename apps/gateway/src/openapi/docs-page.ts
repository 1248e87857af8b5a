import type { ApiRoute } from '../routes/api-route';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A self-contained page (no CDN, no script) listing every operation; the full schema is /api/openapi.json. */
export function renderDocsPage(routes: readonly ApiRoute[]): string {
  const tags = [...new Set(routes.map((r) => r.tag))];
  const sections = tags
    .map((tag) => {
      const rows = routes
        .filter((r) => r.tag === tag)
        .map(
          (r) =>
            `<tr><td class="m ${r.method.toLowerCase()}">${r.method}</td><td><code>${escape(r.path)}</code></td><td>${escape(r.summary)}</td><td>${r.role}</td><td>${r.status}</td></tr>`,
        )
        .join('\n');
      return `<h2>${escape(tag)}</h2>\n<table><tr><th>Method</th><th>Path</th><th>What</th><th>Role</th><th>Status</th></tr>\n${rows}\n</table>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Headspace API</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left}.m{font-weight:bold}.get{color:#06c}.post{color:#080}.put,.patch{color:#a60}.delete{color:#c00}</style>
</head><body>
<h1>Headspace gateway API</h1>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>.
Errors are <code>application/problem+json</code>. Lists take <code>?limit=&amp;cursor=</code> and answer <code>{ items, nextCursor }</code>.
POST commands take an <code>Idempotency-Key</code> header.</p>
${sections}
</body></html>`;
}
