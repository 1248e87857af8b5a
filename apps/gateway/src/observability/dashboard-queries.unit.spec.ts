import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { allPanels, DASHBOARDS_DIR, loadDashboards, panelQueries, substituteVariables, variableQueries } from './dashboard-queries';

const deploy = join(DASHBOARDS_DIR, '..', '..');
const dashboards = loadDashboards();
const intervals = { rateInterval: '1m', range: '15m' };

describe('the shipped Grafana dashboards', () => {
  it('are the six of issue 26, each with its stable uid', () => {
    expect(dashboards.map((d) => [d.file, d.uid])).toEqual([
      ['agents.json', 'headspace-agents'],
      ['cost-and-budgets.json', 'headspace-cost'],
      ['event-flow.json', 'headspace-event-flow'],
      ['infrastructure.json', 'headspace-infrastructure'],
      ['leon.json', 'headspace-leon'],
      ['overview.json', 'headspace-overview'],
    ]);
  });

  it('name only datasources that provisioning creates, by uid', () => {
    const provisioned = (parse(readFileSync(join(deploy, 'grafana/provisioning/datasources/datasources.yaml'), 'utf8')) as { datasources: Array<{ uid: string }> }).datasources.map((d) => d.uid);
    const used = new Set<string>();
    for (const d of dashboards) {
      for (const p of allPanels(d)) {
        if (p.datasource?.uid) used.add(p.datasource.uid);
        for (const t of p.targets ?? []) if (t.datasource?.uid) used.add(t.datasource.uid);
      }
      for (const v of d.templating?.list ?? []) if (v.datasource?.uid) used.add(v.datasource.uid);
    }
    expect([...used].filter((uid) => !provisioned.includes(uid))).toEqual([]);
    expect(provisioned).toEqual(expect.arrayContaining(['prometheus', 'tempo', 'loki']));
  });

  it('give every non-row panel a query and a unique id within its dashboard', () => {
    for (const d of dashboards) {
      const panels = allPanels(d);
      expect(new Set(panels.map((p) => p.id)).size, d.title).toBe(panels.length);
      const empty = panels.filter((p) => p.type !== 'row' && !(p.targets ?? []).some((t) => t.expr?.trim()));
      expect(empty.map((p) => `${d.title} / ${p.title}`)).toEqual([]);
    }
  });

  it('never hide a missing metric behind a constant fallback', () => {
    const hiding = panelQueries(dashboards, intervals).filter((q) => /\bor\s+vector\s*\(|\babsent\s*\(|\bor\s+on\s*\(\)\s*vector/.test(q.raw));
    expect(hiding.map((q) => q.raw)).toEqual([]);
  });

  it('draw budget utilisation against the 80 % and 95 % lines', () => {
    const cost = dashboards.find((d) => d.uid === 'headspace-cost')!;
    const panel = allPanels(cost).find((p) => p.title === 'Budget utilisation')!;
    const defaults = (panel.fieldConfig as { defaults: { thresholds: { steps: Array<{ value: number | null }> }; custom: { thresholdsStyle: { mode: string } } } }).defaults;
    expect(defaults.thresholds.steps.map((s) => s.value)).toEqual([null, 0.8, 0.95]);
    expect(defaults.custom.thresholdsStyle.mode).toMatch(/line/);
    expect(panel.targets![0].expr).toContain('headspace_budget_utilisation');
  });

  it('link panels to their traces in Tempo', () => {
    for (const d of dashboards) {
      const tempoLinks = allPanels(d).flatMap((p) => ((p.fieldConfig as { defaults?: { links?: Array<{ url: string }> } } | undefined)?.defaults?.links ?? []).filter((l) => l.url.includes('%22tempo%22')));
      expect(tempoLinks.length, d.title).toBeGreaterThan(0);
    }
  });

  it('are provisioned from the folder docker-compose mounts', () => {
    const provider = parse(readFileSync(join(deploy, 'grafana/provisioning/dashboards/dashboards.yaml'), 'utf8')) as { providers: Array<{ options: { path: string } }> };
    const compose = readFileSync(join(deploy, '..', 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`./deploy/grafana/dashboards:${provider.providers[0].options.path}:ro`);
  });
});

describe('template variables in a panel query', () => {
  it("become the interval stand-ins and `.*` for the dashboard's own variables", () => {
    expect(substituteVariables('sum by (persona) (rate(x{persona=~"$persona", team=~"${team}"}[$__rate_interval])) + increase(y[$__range])', ['persona', 'team'], intervals)).toBe(
      'sum by (persona) (rate(x{persona=~".*", team=~".*"}[1m])) + increase(y[15m])',
    );
  });

  it('refuse a variable the dashboard does not declare', () => {
    expect(() => substituteVariables('x{team=~"$teem"}', ['team'], intervals)).toThrow(/\$teem/);
  });

  it('of every shipped dashboard are declared, and every query variable reads label_values of a selector', () => {
    expect(panelQueries(dashboards, intervals).every((q) => !q.expr.includes('$'))).toBe(true);
    expect(variableQueries(dashboards, intervals).map((q) => q.refId)).toEqual(expect.arrayContaining(['service', 'team', 'persona', 'model', 'project']));
  });
});
