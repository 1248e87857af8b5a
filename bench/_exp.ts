import { Pool } from 'pg';
import { ProcessorRunner } from '@headspace/event-store';
(async () => {
  const pool = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/hs_exp' });
  const cols = 'global_position, transaction_id::text AS transaction_id, event_id, stream_id, stream_version, category, type, schema_version, data, metadata, recorded_at';
  const parts = cols.split(', ');
  const variants = [cols, ...parts.map((p) => parts.filter((q) => q !== p).join(', '))];
  for (const c of variants) {
    let t = performance.now(); let cursor = ['0','0']; let n = 0;
    for (;;) { const { rows } = await pool.query(`SELECT ${c}, transaction_id::text AS tx FROM b.events WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint) ORDER BY transaction_id, global_position LIMIT 1000`, cursor); if (!rows.length) break; n += rows.length; const l = rows[rows.length-1]; cursor = [l.tx, l.global_position]; }
    console.log(c.length === cols.length ? 'ALL' : 'minus ' + parts.find((p) => !c.split(', ').includes(p)), Math.round(n / ((performance.now() - t) / 1000)));
  }
  let handled = 0;
  const r = new ProcessorRunner({ pool, schema: 'b', name: 'x' + Date.now(), batchSize: 1000, pollIntervalMs: 5, handle: async (e) => { handled += e.length; } });
  const t = performance.now(); r.start(); await r.waitUntilCaughtUp(); console.log('proc', Math.round(handled / ((performance.now() - t) / 1000)));
  await r.stop(); await pool.end();
})();
