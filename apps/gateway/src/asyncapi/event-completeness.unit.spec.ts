import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as contracts from '@headspace/contracts';
import type { EventDefinition } from '@headspace/contracts';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildAsyncApiDocument } from './asyncapi-document';
import { publishedEvents } from './published-events';

const APPS = join(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * What each service's production code builds its EventRegistry from (the registry is what its
 * store accepts, and its relay publishes everything the store holds): the contract lists named in
 * `new EventRegistry(…)`, read from the source because apps never import apps.
 */
function registeredEvents(): Array<{ service: string; event: EventDefinition; at: string }> {
  const found: Array<{ service: string; event: EventDefinition; at: string }> = [];
  for (const app of readdirSync(APPS)) {
    for (const file of sourceFiles(join(APPS, app, 'src'))) {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('new EventRegistry(')) continue;
      const at = relative(APPS, file);
      const visit = (node: ts.Node) => {
        if (ts.isNewExpression(node) && node.expression.getText() === 'EventRegistry') {
          const arg = node.arguments?.[0];
          const names = arg && ts.isArrayLiteralExpression(arg) ? arg.elements.map((e) => (ts.isSpreadElement(e) ? e.expression : e).getText()) : arg ? [arg.getText()] : [];
          for (const name of names) {
            const list = (contracts as Record<string, unknown>)[name];
            if (!Array.isArray(list)) throw new Error(`${at}: EventRegistry built from "${name}", not a contracts event list this spec can read`);
            for (const event of list as EventDefinition[]) found.push({ service: app, event, at });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
    }
  }
  return found;
}

describe('the AsyncAPI document against what the services append', () => {
  const registered = registeredEvents();
  const doc = buildAsyncApiDocument(publishedEvents) as { channels: Record<string, { address: string }> };
  const documented = new Set(Object.values(doc.channels).map((c) => c.address));

  it('documents every event type a service registers with its event store, under that service', () => {
    expect(registered.length).toBeGreaterThan(0);
    const missing = registered.filter(({ service, event }) => !documented.has(`hs.evt.${service}.${event.type}`)).map(({ event, at }) => `${event.type} (${at})`);
    expect(missing).toEqual([]);
  });

  it('documents no event type that no service appends', () => {
    const appended = new Set(registered.map(({ service, event }) => `hs.evt.${service}.${event.type}`));
    const extra = [...documented].filter((address) => address.startsWith('hs.evt.') && !appended.has(address));
    expect(extra).toEqual([]);
  });
});
