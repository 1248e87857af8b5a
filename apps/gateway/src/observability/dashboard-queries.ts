import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The shipped dashboards: provisioned into Grafana from this folder (deploy/grafana/provisioning/dashboards). */
export const DASHBOARDS_DIR = join(__dirname, '../../../../deploy/grafana/dashboards');

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}

export interface Panel {
  id?: number;
  title?: string;
  type?: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
  fieldConfig?: unknown;
  links?: unknown[];
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
  datasource?: { type?: string; uid?: string };
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating?: { list: Variable[] };
  file: string;
}

export interface PanelQuery {
  dashboard: string;
  panel: string;
  refId: string;
  /** As written in the dashboard. */
  raw: string;
  /** Template variables substituted: what Prometheus is asked. */
  expr: string;
}

export function loadDashboards(dir = DASHBOARDS_DIR): Dashboard[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<Dashboard, 'file'>), file }));
}

/** Every panel, rows' collapsed children included. */
export function allPanels(dashboard: Pick<Dashboard, 'panels'>): Panel[] {
  const walk = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...walk(p.panels ?? [])]);
  return walk(dashboard.panels);
}

/** Fixed stand-ins for Grafana's interval variables (the spec's run lasts minutes, scraped every second). */
export interface Intervals {
  rateInterval: string;
  range: string;
}

const BUILTIN: Record<string, (i: Intervals) => string> = {
  __rate_interval: (i) => i.rateInterval,
  __interval: (i) => i.rateInterval,
  __range: (i) => i.range,
};

/**
 * `$var`, `${var}`, `${var:format}` and `[[var]]` replaced: Grafana's interval variables by fixed
 * durations, the dashboard's own variables by `.*` (they only ever appear in `=~` matchers, which
 * match every value then, as "All" does). An undeclared variable throws: it is a typo in the JSON.
 */
export function substituteVariables(expr: string, declared: string[], intervals: Intervals): string {
  return expr.replace(/\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (match, braced?: string, bracketed?: string, plain?: string) => {
    const name = (braced ?? bracketed ?? plain)!;
    if (BUILTIN[name]) return BUILTIN[name](intervals);
    if (declared.includes(name)) return '.*';
    throw new Error(`${match} in "${expr}" is neither a Grafana interval variable nor declared in the dashboard's templating`);
  });
}

export function variableNames(dashboard: Pick<Dashboard, 'templating'>): string[] {
  return (dashboard.templating?.list ?? []).map((v) => v.name);
}

/** Every Prometheus target of every panel, with variables substituted. */
export function panelQueries(dashboards: Dashboard[], intervals: Intervals): PanelQuery[] {
  return dashboards.flatMap((d) => {
    const declared = variableNames(d);
    return allPanels(d).flatMap((p) =>
      (p.targets ?? [])
        .filter((t) => typeof t.expr === 'string')
        .map((t) => ({
          dashboard: d.title,
          panel: p.title ?? `panel ${p.id}`,
          refId: t.refId ?? 'A',
          raw: t.expr!,
          expr: substituteVariables(t.expr!, declared, intervals),
        })),
    );
  });
}

/**
 * The series selectors behind the dashboards' query variables (`label_values(<selector>, label)`),
 * as instant queries: a variable whose metric is gone would leave its drop-down empty.
 */
export function variableQueries(dashboards: Dashboard[], intervals: Intervals): PanelQuery[] {
  return dashboards.flatMap((d) =>
    (d.templating?.list ?? [])
      .filter((v) => v.type === 'query')
      .map((v) => {
        const raw = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
        const m = /^label_values\((.+),\s*(\w+)\)$/.exec(raw.trim());
        if (!m) throw new Error(`${d.title}: variable ${v.name} is not label_values(<selector>, <label>): ${raw}`);
        return { dashboard: d.title, panel: `variable ${v.name}`, refId: v.name, raw, expr: substituteVariables(m[1], variableNames(d), intervals) };
      }),
  );
}
