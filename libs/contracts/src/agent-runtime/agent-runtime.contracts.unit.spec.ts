import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentDefinitionFrontmatterSchema, agentResultSchema, handoffArtefactSchema, reflectionJsonSchema, reflectionSchema } from './index';

type JsonObj = { required?: string[]; properties?: Record<string, JsonObj>; items?: JsonObj; enum?: string[] };

describe('agent-runtime contracts', () => {
  it('the zod reflection schema requires and enumerates what the seed JSON Schema does', () => {
    const generated = z.toJSONSchema(reflectionSchema, { io: 'input' }) as JsonObj;
    const seed = reflectionJsonSchema as unknown as JsonObj;
    const compare = (a: JsonObj, b: JsonObj, path: string) => {
      expect([...(a.required ?? [])].sort(), `${path} required`).toEqual([...(b.required ?? [])].sort());
      if (b.enum) expect(a.enum, `${path} enum`).toEqual(b.enum);
      for (const [k, v] of Object.entries(b.properties ?? {})) {
        expect(a.properties?.[k], `${path}.${k}`).toBeDefined();
        compare(a.properties?.[k] as JsonObj, v, `${path}.${k}`);
      }
      if (b.items) compare(a.items as JsonObj, b.items, `${path}[]`);
    };
    compare(generated, seed, '$');
  });

  it('an AgentResult names a bad exit reason', () => {
    const ok = { summary: 's', turnsUsed: 1, tokensConsumed: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, toolsUsed: [], filesModified: [], exitReason: 'handoff' };
    expect(agentResultSchema.parse(ok).exitReason).toBe('handoff');
    const bad = agentResultSchema.safeParse({ ...ok, exitReason: 'exploded' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].path).toEqual(['exitReason']);
  });

  it('agent frontmatter turns comma-separated lists into arrays and defaults model and permission mode', () => {
    const fm = agentDefinitionFrontmatterSchema.parse({ name: 'a-b', description: 'd', tools: 'Read, Grep ,', skills: ['x'] });
    expect(fm).toMatchObject({ tools: ['Read', 'Grep'], skills: ['x'], model: 'inherit', permissionMode: 'default' });
  });

  it('a handoff needs at least one suggested next step', () => {
    const r = handoffArtefactSchema.safeParse({ persona: 'Con', sessionAt: '2026-02-15T14:30:00Z', task: 't', status: 's', whatWasDone: [], whatRemains: [], blockersNotes: [], filesModified: [], suggestedNextSteps: [] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['suggestedNextSteps']);
  });
});
