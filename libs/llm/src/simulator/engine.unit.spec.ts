import { describe, expect, it } from 'vitest';
import { buildMessage, minimalValue, pickReply, readContext, selectScenario } from './engine';
import { messagesRequestSchema, type MessagesRequest } from './request';
import { parseScenario, type Scenario } from './scenario';

const sc = (raw: Record<string, unknown>): Scenario => parseScenario(raw, 'test.yaml');
const scenarios = [
  sc({ id: 'default', persona: '*', situation: '*', steps: [{ text: 'default' }] }),
  sc({ id: 'con-any', persona: 'con', situation: '*', steps: [{ text: 'con any' }] }),
  sc({ id: 'con-impl', persona: 'con', situation: 'implement-task', steps: [{ text: 'con impl' }] }),
  sc({ id: 'any-review', persona: '*', situation: 'review', steps: [{ text: 'any review' }] }),
];

const req = (raw: Record<string, unknown>): MessagesRequest =>
  messagesRequestSchema.parse({ model: 'm', max_tokens: 1000, ...raw });

describe('scenario selection', () => {
  it('reads persona and situation lines from the system prompt, case-insensitively', () => {
    const ctx = readContext(req({ system: 'intro\npersona: Con\nSituation: implement-task\n', messages: [{ role: 'user', content: 'x' }] }));
    expect(ctx).toMatchObject({ persona: 'con', situation: 'implement-task', assistantTurns: 0 });
  });

  it('falls back to the "# Team Member: <Name>" heading of the composed prompt for the persona', () => {
    const ctx = readContext(
      req({ system: [{ type: 'text', text: '# Team Member: Verner\nQA lead.' }], messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(ctx.persona).toBe('verner');
    expect(ctx.situation).toBe('default');
  });

  it('reads system entries inside messages as system text, as the CLI sends them to newer models', () => {
    const ctx = readContext(
      req({ messages: [{ role: 'system', content: 'Persona: con\nSituation: review' }, { role: 'user', content: 'x' }] }),
    );
    expect(ctx).toMatchObject({ persona: 'con', situation: 'review' });
  });

  it('matches the task text, skipping the <system-reminder> blocks the CLI puts before it', () => {
    const ctx = readContext(
      req({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>\nContext: today is Thursday.\n</system-reminder>' },
              { type: 'text', text: '<system-reminder>skills</system-reminder>\nCount the words' },
            ],
          },
        ],
      }),
    );
    expect(ctx.firstUserText).toBe('Count the words');
    expect(ctx.lastUserText).toBe('Count the words');
  });

  it('prefers the exact persona and situation, then persona wildcards, then the default scenario', () => {
    expect(selectScenario(scenarios, 'con', 'implement-task')?.id).toBe('con-impl');
    expect(selectScenario(scenarios, 'con', 'review')?.id).toBe('con-any');
    expect(selectScenario(scenarios, 'al', 'review')?.id).toBe('any-review');
    expect(selectScenario(scenarios, 'al', 'build')?.id).toBe('default');
    expect(selectScenario(scenarios.slice(1, 3), 'al', 'build')).toBeUndefined();
  });

  it('picks the scenario whose prompt regex matches the first user message, and never one whose regex fails', () => {
    const byTask = [
      sc({ id: 'any-impl', persona: '*', situation: 'implement-task', steps: [{ text: 'generic' }] }),
      sc({ id: 't1', persona: '*', situation: 'implement-task', prompt: '^Task T1:', steps: [{ text: 't1' }] }),
      sc({ id: 't2', persona: '*', situation: 'implement-task', prompt: '^Task T2:', steps: [{ text: 't2' }] }),
    ];
    expect(selectScenario(byTask, 'may', 'implement-task', 'Task T2: Add the CLI')?.id).toBe('t2');
    expect(selectScenario(byTask, 'may', 'implement-task', 'Task T9: other')?.id).toBe('any-impl');
    // A task script beats even an exact persona + situation scenario.
    expect(selectScenario([...scenarios, ...byTask], 'con', 'implement-task', 'Task T1: topWords')?.id).toBe('t1');
    expect(selectScenario([...scenarios, ...byTask], 'con', 'implement-task', 'Task T9: other')?.id).toBe('con-impl');
    expect(readContext(req({ messages: [{ role: 'user', content: 'Task T1: x' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }] })).firstUserText).toBe('Task T1: x');
  });

  it('on equal specificity the earlier scenario wins, so extra directories override shipped ones', () => {
    const extra = sc({ id: 'zz-example', persona: 'con', situation: 'implement-task', steps: [{ text: 'example' }] });
    expect(selectScenario([extra, ...scenarios], 'con', 'implement-task')?.id).toBe('zz-example');
  });
});

describe('step picking and branching', () => {
  const branching = sc({
    id: 'b',
    persona: 'con',
    situation: 's',
    interrupts: [{ user_text: 'write your handoff', text: 'handoff!' }],
    steps: [
      { text: 'step 0', tool_use: [{ name: 'Bash', input: { command: 'npm test' } }] },
      {
        text: 'step 1 default',
        when: [
          { tool_result: 'tests? failed|FAIL', text: 'fix it' },
          { tool_error: true, text: 'tool errored' },
        ],
      },
    ],
    exhausted: { text: 'all done' },
  });
  const conversation = (result: string, isError = false, extraText?: string) =>
    req({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: result }], is_error: isError },
            ...(extraText ? [{ type: 'text', text: extraText }] : []),
          ],
        },
      ],
    });

  it('picks the step by the number of assistant turns', () => {
    expect(pickReply(branching, readContext(req({ messages: [{ role: 'user', content: 'go' }] }))).source).toBe('steps.0');
  });

  it('takes the first branch whose tool_result regex matches, else the step itself', () => {
    expect(pickReply(branching, readContext(conversation('2 tests failed'))).reply.text).toBe('fix it');
    expect(pickReply(branching, readContext(conversation('ok', true))).reply.text).toBe('tool errored');
    const passed = pickReply(branching, readContext(conversation('all passed')));
    expect(passed.reply.text).toBe('step 1 default');
    expect(passed.source).toBe('steps.1');
  });

  it('lets an interrupt on the last user text win over the step', () => {
    const picked = pickReply(branching, readContext(conversation('2 tests failed', false, 'Please write your handoff now')));
    expect(picked).toMatchObject({ source: 'interrupts.0', reply: { text: 'handoff!' } });
  });

  it('branches on the system prompt: the reply of a model that has, or lacks, what its prompt holds', () => {
    const learned = sc({ id: 'l', persona: 'con', situation: 's', steps: [{ text: 'JSON.parse fails', when: [{ system_text: 'has comments', text: 'parsed as JSONC' }] }] });
    const ask = (system: string) => pickReply(learned, readContext(req({ system, messages: [{ role: 'user', content: 'read the settings' }] }))).reply.text;
    expect(ask('Persona: con\n## Your Accumulated Learnings\n- settings.json has comments → parse it as JSONC')).toBe('parsed as JSONC');
    expect(ask('Persona: con')).toBe('JSON.parse fails');
  });

  it('answers with the exhausted reply past the last step', () => {
    const r = req({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
        { role: 'assistant', content: 'd' },
        { role: 'user', content: 'e' },
      ],
    });
    expect(pickReply(branching, readContext(r))).toMatchObject({ source: 'exhausted', reply: { text: 'all done' } });
  });
});

describe('building a simulated message', () => {
  const zeroCache = {
    input_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  };

  it('labels text, fills templates, gives deterministic ids and applies usage overrides', () => {
    const r = req({ system: 'Persona: mark', messages: [{ role: 'user', content: 'go' }] });
    const picked = {
      source: 'steps.0',
      reply: {
        text: 'Hi from {{persona}} on {{model}}',
        tool_use: [{ name: 'send_message', input: { to: 'con', message: 'turn {{turn}}' } }],
        usage: { input_tokens: 185_000 },
      },
    };
    const a = buildMessage(r, picked, readContext(r), zeroCache);
    const b = buildMessage(r, picked, readContext(r), zeroCache);
    expect(a).toEqual(b);
    expect(a.content[0]).toEqual({ type: 'text', text: '[simulated] Hi from mark on m', citations: null });
    expect(a.content[1]).toMatchObject({ type: 'tool_use', name: 'send_message', input: { to: 'con', message: 'turn 0' } });
    expect(a.stop_reason).toBe('tool_use');
    expect(a.usage.input_tokens).toBe(185_000);
    const other = req({ system: 'Persona: mark', messages: [{ role: 'user', content: 'different' }] });
    expect(buildMessage(other, picked, readContext(other), zeroCache).id).not.toBe(a.id);
  });

  it('stops at max_tokens, truncating text and dropping the tool call', () => {
    const r = req({ max_tokens: 5, messages: [{ role: 'user', content: 'go' }] });
    const picked = { source: 'steps.0', reply: { text: 'x'.repeat(200), tool_use: [{ name: 'Read', input: {} }] } };
    const m = buildMessage(r, picked, readContext(r), zeroCache);
    expect(m.stop_reason).toBe('max_tokens');
    expect(m.content).toHaveLength(1);
    expect(m.usage.output_tokens).toBeLessThanOrEqual(5);
  });

  const schema = {
    type: 'object',
    properties: { verdict: { enum: ['pass', 'fail'] }, count: { type: 'integer', minimum: 1 }, notes: { type: 'string' } },
    required: ['verdict', 'count'],
  };
  const offered = (messages: unknown[]) =>
    req({ messages, tools: [{ name: 'Read', input_schema: { type: 'object' } }, { name: 'StructuredOutput', input_schema: schema }] });

  it('turns the final answer into a StructuredOutput call with the script payload when the request offers that tool', () => {
    const r = offered([{ role: 'user', content: 'go' }]);
    const picked = { source: 'steps.0', reply: { text: 'Done.', structured: { verdict: 'pass', count: 3, notes: 'by {{persona}}' } } };
    const m = buildMessage(r, picked, readContext(r), zeroCache);
    expect(m.stop_reason).toBe('tool_use');
    expect(m.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'StructuredOutput', input: { verdict: 'pass', count: 3, notes: 'by unknown' } });
  });

  it('answers a script without a payload with the minimal object the schema accepts, and only once per conversation', () => {
    const r = offered([{ role: 'user', content: 'go' }]);
    const first = buildMessage(r, { source: 'steps.0', reply: { text: 'Done.' } }, readContext(r), zeroCache);
    expect(first.content.at(-1)).toMatchObject({ name: 'StructuredOutput', input: { verdict: 'pass', count: 1 } });
    const after = offered([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'StructuredOutput', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    ]);
    const second = buildMessage(after, { source: 'exhausted', reply: { text: 'Bye.' } }, readContext(after), zeroCache);
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content.some((b) => b.type === 'tool_use')).toBe(false);
  });

  it('keeps a plain text answer when StructuredOutput is not offered', () => {
    const r = req({ messages: [{ role: 'user', content: 'go' }] });
    const m = buildMessage(r, { source: 'steps.0', reply: { text: 'Done.', structured: { verdict: 'pass' } } }, readContext(r), zeroCache);
    expect(m.content.map((b) => b.type)).toEqual(['text']);
  });

  it('builds minimal values for arrays, strings with a minimum length and unions', () => {
    expect(minimalValue({ type: 'array', minItems: 2, items: { type: 'boolean' } })).toEqual([false, false]);
    expect((minimalValue({ type: 'string', minLength: 20 }) as string).length).toBe(20);
    expect(minimalValue({ anyOf: [{ type: 'null' }, { type: 'string' }] })).toBeNull();
  });

  it('shortens the scripted thinking to its first sentence at low effort and keeps it whole otherwise', () => {
    const picked = { source: 'steps.0', reply: { thinking: 'First I read. Then I count.', text: 'Done.' } };
    const at = (effort?: string) => {
      const r = req({ thinking: { type: 'adaptive' }, ...(effort ? { output_config: { effort } } : {}), messages: [{ role: 'user', content: 'go' }] });
      return (buildMessage(r, picked, readContext(r), zeroCache).content[0] as { thinking: string }).thinking;
    };
    expect(at('low')).toBe('[simulated] First I read.');
    expect(at('medium')).toBe('[simulated] First I read. Then I count.');
    expect(at()).toBe('[simulated] First I read. Then I count.');
  });

  it('sends signed thinking without its text when thinking.display is "omitted"', () => {
    const r = req({ thinking: { type: 'adaptive', display: 'omitted' }, messages: [{ role: 'user', content: 'go' }] });
    const m = buildMessage(r, { source: 'steps.0', reply: { thinking: 'secret', text: 'Done.' } }, readContext(r), zeroCache);
    expect(m.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect((m.content[0] as { signature: string }).signature).toMatch(/^sim_sig_/);
  });
});
