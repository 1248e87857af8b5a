// A tiny HTTP app with a bug: GET /orders/42 throws outside any try (a crash), reported before exit.
//   HEADSPACE_INGEST_URL=http://127.0.0.1:3000/api/v1/ops/projects/shop/exceptions HEADSPACE_INGEST_KEY=<key> \
//   node example-app.mjs --port 5060 && curl http://127.0.0.1:5060/orders/42
import { createServer } from 'node:http';
import { createReporter } from './report-exception.mjs';

const reporter = createReporter({ environment: 'example', release: 'orders@1.0.0' });
reporter.install();

const orders = new Map([['1', { total: 10 }]]);

function totalOf(id) {
  return orders.get(id).total; // the bug: an unknown id is a TypeError
}

const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 5060);
createServer((req, res) => {
  const match = /^\/orders\/(\w+)$/.exec(req.url ?? '');
  if (!match) return res.end('ok');
  // A timer escapes the request's try/catch like real async bugs do: an uncaughtException.
  setTimeout(() => res.end(JSON.stringify({ total: totalOf(match[1]) })), 0);
}).listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
