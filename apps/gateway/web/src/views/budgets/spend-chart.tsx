import type { SpendSeries } from './spend-series';

const W = 560;
const H = 180;
const PAD = { left: 56, right: 12, top: 10, bottom: 24 };
/** Distinguishable in light and dark (≥ 3:1 against both backgrounds), then repeated with dashes. */
const COLOURS = ['#3b82f6', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2'];

const usd = (micros: number) => `$${(micros / 1e6).toFixed(2)}`;

/** Cumulative spend over time as step lines: a hand-drawn SVG (no chart library in the bundle). */
export function SpendChart({ title, series }: { title: string; series: SpendSeries[] }) {
  const points = series.flatMap((s) => s.points);
  if (points.length === 0) return null;
  const t0 = Math.min(...points.map((p) => p.t));
  const t1 = Math.max(t0 + 1_000, ...points.map((p) => p.t));
  const max = Math.max(1, ...points.map((p) => p.micros));
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (m: number) => H - PAD.bottom - (m / max) * (H - PAD.top - PAD.bottom);
  const path = (s: SpendSeries) => {
    let d = `M ${x(t0).toFixed(1)} ${y(0).toFixed(1)}`;
    for (const p of s.points) d += ` H ${x(p.t).toFixed(1)} V ${y(p.micros).toFixed(1)}`;
    return `${d} H ${x(t1).toFixed(1)}`;
  };
  const id = title.toLowerCase().replace(/\W+/g, '-');
  return (
    <figure className="chart" data-chart={id}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-caption`}>
        <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} className="axis" />
        <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={y(0)} className="axis" />
        <text x={PAD.left - 4} y={y(max) + 4} textAnchor="end" className="tick">
          {usd(max)}
        </text>
        <text x={PAD.left - 4} y={y(0)} textAnchor="end" className="tick">
          $0
        </text>
        <text x={PAD.left} y={H - 6} className="tick">
          {new Date(t0).toLocaleTimeString()}
        </text>
        <text x={W - PAD.right} y={H - 6} textAnchor="end" className="tick">
          {new Date(t1).toLocaleTimeString()}
        </text>
        {series.map((s, i) => (
          <path key={s.key} d={path(s)} fill="none" stroke={COLOURS[i % COLOURS.length]} strokeWidth={2} strokeDasharray={i >= COLOURS.length ? '4 3' : undefined} data-series={s.key} />
        ))}
      </svg>
      <figcaption id={`${id}-caption`}>
        {title}:{' '}
        {series.map((s, i) => (
          <span key={s.key} className="legend">
            <span className="swatch" style={{ background: COLOURS[i % COLOURS.length] }} aria-hidden="true" /> {s.key} {usd(s.points.at(-1)?.micros ?? 0)}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
