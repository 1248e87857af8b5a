'use strict';
// The demo shop's HTTP API. GET /orders/<id>/total answers the order's total; an exception in a
// route is reported to Headspace before the 500 goes out, so the caller knows Leon has it.
//   PORT=5070 HEADSPACE_INGEST_URL=… HEADSPACE_INGEST_KEY=… node src/server.js
const { createServer } = require('node:http');
const { findOrder, orderTotal } = require('./orders');
const { createReporter } = require('./report-exception');

const release = process.env.HEADSPACE_RELEASE || `ops-demo-shop@${require('../package.json').version}`;
const reporter = createReporter({ release });

function route(req) {
  const match = /^\/orders\/(\w+)\/total$/.exec(req.url ?? '');
  if (req.method !== 'GET' || !match) return { status: 404, body: { error: 'not found' } };
  const order = findOrder(match[1]);
  if (!order) return { status: 404, body: { error: `no order ${match[1]}` } };
  return { status: 200, body: { id: order.id, total: orderTotal(order) } };
}

const server = createServer(async (req, res) => {
  let answer;
  try {
    answer = route(req);
  } catch (error) {
    const receipt = await reporter.report(error, { request: { method: req.method, url: req.url } });
    answer = { status: 500, body: { error: 'internal error', release, ...(receipt ? { reported: receipt } : {}) } };
  }
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
});

server.listen(Number(process.env.PORT ?? 5070), '127.0.0.1', () => {
  console.log(`ops-demo-shop listening on http://127.0.0.1:${server.address().port} (release ${release})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));
