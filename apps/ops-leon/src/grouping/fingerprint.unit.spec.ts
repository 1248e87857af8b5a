import { describe, expect, it } from 'vitest';
import { frameLocation, groupIdOf, groupingOf } from './fingerprint';
import { templateMessage } from './message-template';
import { parseStack } from './stack-parser';

const report = (over: Partial<Parameters<typeof groupingOf>[0]> = {}) => ({ type: 'OrderNotFound', message: 'order 8812 not found', frames: [], ...over });

const nodeStack = (line: number, id: string) => `Error: order ${id} not found for user_${id}
    at loadOrder (/srv/app-v1/src/orders.js:${line}:11)
    at async handle (/srv/app-v1/src/routes.js:40:5)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)
    at Layer.handle (/srv/app-v1/node_modules/express/lib/router/layer.js:95:5)`;

describe('grouping', () => {
  it('the same bug thrown two lines apart, with different ids in the message, is one group', () => {
    const a = groupingOf(report({ message: 'order 8812 not found for user_8812', stack: nodeStack(12, '8812') }));
    const b = groupingOf(report({ message: 'order 99310 not found for user_99310', stack: nodeStack(14, '99310').replaceAll('app-v1', 'app-v2') }));
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.title).toBe('order <num> not found for <id>');
    expect(a.culprit).toBe('src/orders.js in loadOrder');
  });

  it('two different bugs are two groups: another type, another function, or another message', () => {
    const base = groupingOf(report({ stack: nodeStack(12, '1') }));
    expect(groupingOf(report({ type: 'TypeError', stack: nodeStack(12, '1') })).fingerprint).not.toBe(base.fingerprint);
    expect(groupingOf(report({ stack: nodeStack(12, '1').replace('loadOrder', 'saveOrder') })).fingerprint).not.toBe(base.fingerprint);
    expect(groupingOf(report({ message: 'payment declined', stack: nodeStack(12, '1') })).fingerprint).not.toBe(base.fingerprint);
  });

  it('groups on structured frames with line numbers, columns and absolute directories left out', () => {
    const frames = (line: number, dir: string) => [
      { filename: `${dir}/lib/db.py`, function: 'query', lineno: 3, inApp: false },
      { absPath: `${dir}/app/views.py`, filename: `${dir}/app/views.py`, function: 'checkout', lineno: line, colno: line },
    ];
    expect(groupingOf(report({ frames: frames(10, '/home/a') })).fingerprint).toBe(groupingOf(report({ frames: frames(99, '/opt/b') })).fingerprint);
  });

  it('a library-only stack falls back to every frame, so it still tells bugs apart', () => {
    const lib = (fn: string) => [{ filename: '/x/node_modules/pg/lib/client.js', function: fn, inApp: false }];
    expect(groupingOf(report({ frames: lib('query') })).fingerprint).not.toBe(groupingOf(report({ frames: lib('connect') })).fingerprint);
  });

  it('a client fingerprint wins over the stack and message; {{ default }} stands for Leon’s own parts', () => {
    const custom = (message: string, line: number) => groupingOf(report({ message, stack: nodeStack(line, '1'), fingerprint: ['payments-down'] }));
    expect(custom('timeout after 3000ms', 1).fingerprint).toBe(custom('connection refused', 2).fingerprint);
    expect(custom('x', 1).fingerprint).not.toBe(groupingOf(report({ message: 'x', stack: nodeStack(1, '1') })).fingerprint);
    const withDefault = (type: string) => groupingOf(report({ type, stack: nodeStack(1, '1'), fingerprint: ['{{ default }}', 'eu'] })).fingerprint;
    expect(withDefault('A')).not.toBe(withDefault('B'));
    expect(groupingOf(report({ stack: nodeStack(1, '1'), fingerprint: ['{{default}}', 'eu'] })).fingerprint).not.toBe(withDefault('A'));
  });

  it('names the group by project and fingerprint', () => {
    expect(groupIdOf('1', 'f')).toMatch(/^grp_[0-9a-f]{24}$/);
    expect(groupIdOf('1', 'f')).toBe(groupIdOf('1', 'f'));
    expect(groupIdOf('2', 'f')).not.toBe(groupIdOf('1', 'f'));
  });
});

describe('message template', () => {
  it.each([
    ['user 42 has no cart 7', 'user <num> has no cart <num>'],
    ['no row for 9b2f1c44-0e0a-4d1f-8c0d-2b1f6a9e1a77', 'no row for <uuid>'],
    ["KeyError: 'sku-123'", 'KeyError: <str>'],
    ['mail to ann@example.com bounced', 'mail to <email> bounced'],
    ['GET https://api.example.com/v1/orders?id=3 failed', 'GET <url> failed'],
    ['bad pointer 0x7ffe12 and hash deadbeef01', 'bad pointer <hex> and hash <hex>'],
    ['at 2024-05-01T10:00:00Z for ord_8812a', 'at <date> for <id>'],
    ["can't decode utf8 input", "can't decode utf8 input"],
  ])('%s → %s', (message, template) => {
    expect(templateMessage(message)).toBe(template);
  });
});

describe('stack text', () => {
  it('parses V8 frames innermost last, library and runtime frames not in-app', () => {
    expect(parseStack(nodeStack(12, '1'))).toEqual([
      { filename: '/srv/app-v1/node_modules/express/lib/router/layer.js', function: 'Layer.handle', lineno: 95, colno: 5, inApp: false },
      { filename: 'node:internal/process/task_queues', function: 'process.processTicksAndRejections', lineno: 95, colno: 5, inApp: false },
      { filename: '/srv/app-v1/src/routes.js', function: 'handle', lineno: 40, colno: 5, inApp: true },
      { filename: '/srv/app-v1/src/orders.js', function: 'loadOrder', lineno: 12, colno: 11, inApp: true },
    ]);
  });

  it('parses Python tracebacks, site-packages not in-app', () => {
    const traceback = `Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/flask/app.py", line 1484, in full_dispatch_request
    rv = self.dispatch_request()
  File "/srv/shop/app/views.py", line 12, in checkout
    total = prices[sku]
KeyError: 'sku-9'`;
    expect(parseStack(traceback)).toEqual([
      { filename: '/usr/lib/python3/site-packages/flask/app.py', function: 'full_dispatch_request', lineno: 1484, inApp: false },
      { filename: '/srv/shop/app/views.py', function: 'checkout', lineno: 12, inApp: true },
    ]);
    const a = groupingOf(report({ type: 'KeyError', message: "'sku-9'", stack: traceback }));
    const b = groupingOf(report({ type: 'KeyError', message: "'sku-10'", stack: traceback.replace('line 12', 'line 14').replaceAll('/srv/shop', '/opt/shop2') }));
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.culprit).toBe('app/views.py in checkout');
  });

  it('parses Firefox frames and ignores text that is no stack', () => {
    expect(parseStack('render@https://cdn.example.com/static/app.3f2a1b9c.js:10:20')).toEqual([
      { filename: 'https://cdn.example.com/static/app.3f2a1b9c.js', function: 'render', lineno: 10, colno: 20, inApp: true },
    ]);
    expect(frameLocation({ filename: 'https://cdn.example.com/static/app.3f2a1b9c.js?v=2' })).toBe('static/app.<hash>.js');
    expect(parseStack('just some words')).toEqual([]);
  });
});
