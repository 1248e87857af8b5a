import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAlive } from '../tools/testing/processes';
import { makeTempDir, removeDir, writeFiles } from '../tools/testing/temp-workspace';
import type { HookScope } from './config';
import { HOOK_EVENTS, type HookPayloads } from './events';
import { HookEngine, type HookOutcome, type HookSession } from './engine';
import type { AgentEvaluator, PromptEvaluator } from './handlers';
import { writeScript } from './testing/scripts';

const preToolUse = (command: string) => ({ tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_1' });
const commandHook = (command: string, extra: Record<string, unknown> = {}) => ({ type: 'command', command, ...extra });
const on = (event: string, command: string, matcher?: string, extra: Record<string, unknown> = {}) => ({
  hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [commandHook(command, extra)] }] },
});

describe('HookEngine with real command hooks', () => {
  let dir: string;
  let session: HookSession;
  beforeEach(async () => {
    dir = await makeTempDir('hs-hooks-');
    session = { sessionId: 'sess-42', cwd: dir, model: 'claude-sonnet-4-5', sessionType: 'headless' };
  });
  afterEach(() => removeDir(dir));

  it('exit 2 denies a PreToolUse with stderr as the reason', async () => {
    const guard = await writeScript(dir, 'guard.sh', `input=$(cat)\nif grep -q 'drop prod' <<<"$input"; then echo "Dropping prod is not allowed" >&2; exit 2; fi\nexit 0`);
    const engine = new HookEngine();
    engine.addSettings('project', on('PreToolUse', guard, 'Bash'));
    const denied = await engine.run('PreToolUse', preToolUse('psql -c "drop prod"'), session);
    expect(denied).toMatchObject({ decision: 'deny', blocked: true, reason: 'Dropping prod is not allowed' });
    expect(denied.outcomes[0]).toMatchObject({ result: 'deny', exitCode: 2, scope: 'project', handler: 'command', label: guard });
    const fine = await engine.run('PreToolUse', preToolUse('ls'), session);
    expect(fine).toMatchObject({ decision: 'none', blocked: false });
    expect(fine.outcomes[0].result).toBe('noop');
  });

  it('fires command hooks for all 12 lifecycle events with the event name in the input', async () => {
    const log = await writeScript(dir, 'log.sh', `grep -o '"hook_event_name":"[A-Za-z]*"' >> "${dir}/events.txt"`);
    const engine = new HookEngine();
    engine.addSettings('project', { hooks: Object.fromEntries(HOOK_EVENTS.map((e) => [e, [{ hooks: [commandHook(log)] }]])) });
    const payloads: HookPayloads = {
      SessionStart: { source: 'startup' },
      UserPromptSubmit: { prompt: 'hi' },
      PreToolUse: preToolUse('ls'),
      PostToolUse: { ...preToolUse('ls'), tool_response: { content: 'ok', is_error: false } },
      PostToolUseFailure: { ...preToolUse('ls'), error: 'boom' },
      PermissionRequest: preToolUse('ls'),
      PreCompact: { trigger: 'manual' },
      Notification: { message: 'waiting for input', notification_type: 'idle' },
      Stop: { stop_hook_active: false },
      SubagentStop: { stop_hook_active: false, agent_type: 'reviewer' },
      SessionEnd: { reason: 'logout' },
      Setup: { trigger: 'init' },
    };
    for (const event of HOOK_EVENTS) {
      const r = await engine.run(event, payloads[event] as never, session);
      expect(r.outcomes).toHaveLength(1);
    }
    const seen = (await readFile(path.join(dir, 'events.txt'), 'utf8')).trim().split('\n').map((l) => l.split(':')[1].replace(/"/g, ''));
    expect(seen).toEqual([...HOOK_EVENTS]);
  });

  it('passes the input JSON on stdin with the common fields', async () => {
    const dump = await writeScript(dir, 'dump.sh', `cat > "${dir}/input.json"`);
    const engine = new HookEngine();
    engine.addSettings('user', on('PreToolUse', dump));
    await engine.run('PreToolUse', preToolUse('git status'), session);
    expect(JSON.parse(await readFile(path.join(dir, 'input.json'), 'utf8'))).toEqual({
      session_id: 'sess-42',
      hook_event_name: 'PreToolUse',
      cwd: dir,
      session_type: 'headless',
      model: 'claude-sonnet-4-5',
      tool_name: 'Bash',
      tool_input: { command: 'git status' },
      tool_use_id: 'toolu_1',
    });
  });

  it('gives hooks the seed and Claude Code environment variables (CLAUDE_PROJECT_DIR, session id, model) and no secrets', async () => {
    const dump = await writeScript(
      dir,
      'env.sh',
      `printf '%s\\n' "sid=$BRAINMASS_SESSION_ID" "model=$BRAINMASS_MODEL" "file=$BRAINMASS_TOOL_INPUT_FILE_PATH" "pct=$BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE" "search=$ENABLE_TOOL_SEARCH" "mcp=$MCP_TIMEOUT" "key=\${ANTHROPIC_API_KEY:-none}" "hs=$HEADSPACE_SESSION_ID:$HEADSPACE_TOOL_INPUT_FILE_PATH" "claude=$CLAUDE_PROJECT_DIR:$CLAUDE_SESSION_ID:$CLAUDE_MODEL:$CLAUDE_AUTOCOMPACT_PCT_OVERRIDE" > "${dir}/env.txt"`,
    );
    const engine = new HookEngine({ env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-x', MCP_TIMEOUT: '5000', HEADSPACE_SESSION_ID: 'stale-parent-session' } });
    engine.addSettings('project', { env: { ENABLE_TOOL_SEARCH: 'auto' }, ...on('PostToolUse', dump, 'Write') });
    await engine.run(
      'PostToolUse',
      { tool_name: 'Write', tool_input: { file_path: 'src/a.ts', content: 'x' }, tool_use_id: 't', tool_response: { content: 'ok', is_error: false } },
      { ...session, env: { BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '70' } },
    );
    expect((await readFile(path.join(dir, 'env.txt'), 'utf8')).trim().split('\n')).toEqual([
      'sid=sess-42',
      'model=claude-sonnet-4-5',
      'file=src/a.ts',
      'pct=70',
      'search=auto',
      'mcp=5000',
      'key=none',
      'hs=sess-42:src/a.ts',
      `claude=${dir}:sess-42:claude-sonnet-4-5:70`,
    ]);
  });

  it('reads structured JSON decisions: deny with reason, ask, and updatedInput with additionalContext', async () => {
    const json = (name: string, obj: unknown) => writeScript(dir, name, `cat >/dev/null\necho '${JSON.stringify(obj)}'`);
    const engine = new HookEngine();
    engine.addSettings('project', on('PreToolUse', await json('deny.sh', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'use the migration tool' } }), 'Bash'));
    engine.addSettings('project', on('PreToolUse', await json('ask.sh', { permissionDecision: 'ask', permissionDecisionReason: 'touches prod' }), 'Write'));
    engine.addSettings(
      'project',
      on('PreToolUse', await json('modify.sh', { hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { file_path: 'safe.txt' }, additionalContext: 'path rewritten' } }), 'Read'),
    );
    expect(await engine.run('PreToolUse', preToolUse('x'), session)).toMatchObject({ decision: 'deny', blocked: true, reason: 'use the migration tool' });
    expect(await engine.run('PreToolUse', { tool_name: 'Write', tool_input: {}, tool_use_id: 't' }, session)).toMatchObject({ decision: 'ask', blocked: false, reason: 'touches prod' });
    expect(await engine.run('PreToolUse', { tool_name: 'Read', tool_input: { file_path: 'x' }, tool_use_id: 't' }, session)).toMatchObject({
      decision: 'allow',
      updatedInput: { file_path: 'safe.txt' },
      additionalContext: ['path rewritten'],
    });
  });

  it('treats other exit codes as non-blocking errors', async () => {
    const broken = await writeScript(dir, 'broken.sh', `echo "config missing" >&2\nexit 1`);
    const engine = new HookEngine();
    engine.addSettings('project', on('PreToolUse', broken));
    const r = await engine.run('PreToolUse', preToolUse('ls'), session);
    expect(r).toMatchObject({ decision: 'none', blocked: false });
    expect(r.outcomes[0]).toMatchObject({ result: 'error', exitCode: 1, reason: expect.stringContaining('config missing') });
  });

  it('matches tool names with anchored regexes, and SessionStart by source', async () => {
    const engine = new HookEngine();
    const mark = async (name: string) => writeScript(dir, `${name}.sh`, `echo ${name} >> "${dir}/ran.txt"`);
    engine.addSettings('project', on('PreToolUse', await mark('edits'), 'Edit|Write'));
    engine.addSettings('project', on('PreToolUse', await mark('mcp'), 'mcp__.*'));
    engine.addSettings('project', on('PreToolUse', await mark('all'), '*'));
    engine.addSettings('project', on('SessionStart', await mark('resume'), 'resume'));
    const ran = async () => (await readFile(path.join(dir, 'ran.txt'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).sort();
    const fire = async (tool: string) => {
      await writeFile(path.join(dir, 'ran.txt'), '');
      await engine.run('PreToolUse', { tool_name: tool, tool_input: {}, tool_use_id: 't' }, session);
      return ran();
    };
    expect(await fire('Write')).toEqual(['all', 'edits']);
    expect(await fire('WriteFile')).toEqual(['all']);
    expect(await fire('mcp__github__push')).toEqual(['all', 'mcp']);
    await writeFile(path.join(dir, 'ran.txt'), '');
    await engine.run('SessionStart', { source: 'startup' }, session);
    expect(await ran()).toEqual([]);
    await engine.run('SessionStart', { source: 'resume' }, session);
    expect(await ran()).toEqual(['resume']);
  });

  it('does not wait for an async hook before deciding, and reports it when it finishes', async () => {
    const gate = path.join(dir, 'gate');
    const slow = await writeScript(dir, 'slow.sh', `while [ ! -f "${gate}" ]; do sleep 0.02; done\necho "async finished" >&2\nexit 2`);
    const finished: HookOutcome[] = [];
    const engine = new HookEngine({ onAsyncOutcome: (o) => finished.push(o) });
    engine.addSettings('project', on('PreToolUse', slow, 'Bash', { async: true }));
    // The hook cannot finish before the gate file exists, so a returned decision proves it was not awaited.
    const r = await engine.run('PreToolUse', preToolUse('ls'), session);
    expect(r).toMatchObject({ decision: 'none', blocked: false });
    expect(r.outcomes[0].result).toBe('async');
    expect(finished).toEqual([]);
    await writeFile(gate, '');
    await engine.drain();
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ result: 'deny', reason: 'async finished' });
  });

  it('stops a hook at its timeout, kills it, and does not block', async () => {
    const hang = await writeScript(dir, 'hang.sh', `sleep 60 & echo $! > "${dir}/hang.pid"\nwait`);
    const engine = new HookEngine();
    engine.addSettings('project', on('PreToolUse', hang, undefined, { timeout: 0.3 }));
    const r = await engine.run('PreToolUse', preToolUse('ls'), session);
    expect(r).toMatchObject({ decision: 'none', blocked: false });
    expect(r.outcomes[0]).toMatchObject({ result: 'timeout', code: 'HOOK.TIMEOUT', reason: expect.stringContaining('timed out') });
    const pid = Number((await readFile(path.join(dir, 'hang.pid'), 'utf8')).trim());
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false);
  });

  it('Stop hook blocks completion with a reason, and lets go once stop_hook_active is set', async () => {
    const stop = await writeScript(
      dir,
      'stop.sh',
      `input=$(cat)\nif grep -q '"stop_hook_active":true' <<<"$input"; then exit 0; fi\necho '{"decision":"block","reason":"3 tests still fail; fix them before stopping"}'`,
    );
    const engine = new HookEngine();
    engine.addSettings('project', { hooks: { Stop: [{ hooks: [commandHook(stop)] }] } });
    expect(await engine.run('Stop', { stop_hook_active: false }, session)).toMatchObject({ blocked: true, reason: '3 tests still fail; fix them before stopping' });
    expect(await engine.run('Stop', { stop_hook_active: true }, session)).toMatchObject({ blocked: false });
  });

  it('turns Stop hooks of subagent frontmatter into SubagentStop hooks', async () => {
    const engine = new HookEngine();
    engine.addHooks('agent', { Stop: [{ hooks: [commandHook('true')] }] }, { source: 'agents/reviewer.md', asSubagent: true });
    expect(engine.registrations().map((r) => [r.event, r.source])).toEqual([['SubagentStop', 'agents/reviewer.md']]);
  });

  it('UserPromptSubmit: plain stdout becomes context; exit 2 blocks the prompt', async () => {
    const ctxHook = await writeScript(dir, 'ctx.sh', `cat >/dev/null\necho "Current branch: main"`);
    const engine = new HookEngine();
    engine.addSettings('user', { hooks: { UserPromptSubmit: [{ hooks: [commandHook(ctxHook)] }] } });
    expect(await engine.run('UserPromptSubmit', { prompt: 'hello' }, session)).toMatchObject({ blocked: false, additionalContext: ['Current branch: main'] });
    const block = await writeScript(dir, 'block.sh', `cat >/dev/null\necho "prompt contains a secret" >&2\nexit 2`);
    engine.addSettings('project', { hooks: { UserPromptSubmit: [{ hooks: [commandHook(block)] }] } });
    expect(await engine.run('UserPromptSubmit', { prompt: 'my key is sk-...' }, session)).toMatchObject({ blocked: true, reason: 'prompt contains a secret' });
  });

  it('exit 2 on a non-blocking event becomes feedback, not a block', async () => {
    const lint = await writeScript(dir, 'lint.sh', `cat >/dev/null\necho "lint: missing semicolon" >&2\nexit 2`);
    const engine = new HookEngine();
    engine.addSettings('project', on('PostToolUse', lint, 'Write'));
    const r = await engine.run('PostToolUse', { tool_name: 'Write', tool_input: {}, tool_use_id: 't', tool_response: { content: 'ok', is_error: false } }, session);
    expect(r).toMatchObject({ blocked: false, feedback: ['lint: missing semicolon'] });
  });

  describe('scopes', () => {
    const decide = (name: string, obj: unknown) => writeScript(dir, name, `cat >/dev/null\necho '${JSON.stringify(obj)}'`);

    it('allowManagedHooksOnly in managed settings ignores every non-managed hook', async () => {
      const deny = await writeScript(dir, 'deny.sh', `echo "project says no" >&2\nexit 2`);
      const engine = new HookEngine();
      engine.addSettings('project', on('PreToolUse', deny));
      engine.addSettings('user', on('PreToolUse', deny));
      engine.addSettings('managed', { allowManagedHooksOnly: true, ...on('PreToolUse', await decide('managed.sh', { permissionDecision: 'allow' })) });
      const r = await engine.run('PreToolUse', preToolUse('ls'), session);
      expect(engine.allowManagedHooksOnly).toBe(true);
      expect(r).toMatchObject({ decision: 'allow', blocked: false });
      expect(r.outcomes.map((o) => [o.scope, o.result])).toEqual([
        ['managed', 'allow'],
        ['project', 'skipped'],
        ['user', 'skipped'],
      ]);
    });

    it('allowManagedHooksOnly set outside managed settings has no effect', async () => {
      const engine = new HookEngine();
      engine.addSettings('project', { allowManagedHooksOnly: true, ...on('PreToolUse', 'exit 2') });
      expect(engine.allowManagedHooksOnly).toBe(false);
      expect((await engine.run('PreToolUse', preToolUse('ls'), session)).blocked).toBe(true);
    });

    it('orders outcomes managed > local > project > user > agent (Claude Code settings precedence), whatever the registration order', async () => {
      const engine = new HookEngine();
      const scopes: HookScope[] = ['agent', 'local', 'project', 'user', 'managed'];
      for (const scope of scopes) engine.addSettings(scope, on('PreToolUse', 'true'), { source: scope });
      const r = await engine.run('PreToolUse', preToolUse('ls'), session);
      expect(r.outcomes.map((o) => o.scope)).toEqual(['managed', 'local', 'project', 'user', 'agent']);
    });

    it('the highest-precedence updatedInput wins, and a deny from any scope beats an allow', async () => {
      const engine = new HookEngine();
      engine.addSettings('user', on('PreToolUse', await decide('user.sh', { permissionDecision: 'allow', updatedInput: { command: 'echo user' } })));
      engine.addSettings('project', on('PreToolUse', await decide('project.sh', { permissionDecision: 'allow', updatedInput: { command: 'echo project' } })));
      expect((await engine.run('PreToolUse', preToolUse('echo model'), session)).updatedInput).toEqual({ command: 'echo project' });
      engine.addSettings('local', on('PreToolUse', await decide('local.sh', { permissionDecision: 'allow', updatedInput: { command: 'echo local' } })));
      expect((await engine.run('PreToolUse', preToolUse('echo model'), session)).updatedInput).toEqual({ command: 'echo local' });
      engine.addSettings('agent', on('PreToolUse', 'echo "persona forbids it" >&2; exit 2'));
      const r = await engine.run('PreToolUse', preToolUse('echo model'), session);
      expect(r).toMatchObject({ decision: 'deny', blocked: true, reason: 'persona forbids it' });
      expect(r.updatedInput).toBeUndefined();
    });
  });

  describe('prompt and agent hooks', () => {
    it('prompt hook: $ARGUMENTS is replaced by the input JSON and ok:false denies with the reason', async () => {
      const prompts: string[] = [];
      const evaluator: PromptEvaluator = {
        async evaluate({ prompt }) {
          prompts.push(prompt);
          return prompt.includes('rm -rf') ? { ok: false, reason: 'destructive command' } : { ok: true };
        },
      };
      const engine = new HookEngine({ promptEvaluator: evaluator });
      engine.addSettings('project', { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Is this safe? $ARGUMENTS' }] }] } });
      expect(await engine.run('PreToolUse', preToolUse('rm -rf build'), session)).toMatchObject({ blocked: true, reason: 'destructive command' });
      expect(prompts[0]).toContain('Is this safe? {');
      expect(prompts[0]).toContain('"command": "rm -rf build"');
      expect(await engine.run('PreToolUse', preToolUse('ls'), session)).toMatchObject({ decision: 'allow', blocked: false });
    });

    it('agent hook: the evaluator gets read-only tools and can verify the workspace', async () => {
      await writeFiles(dir, { 'TEST_RESULTS.txt': 'FAILED: 2 tests\n' });
      const evaluator: AgentEvaluator = {
        async evaluate({ tools, cwd }) {
          const read = tools.find((t) => t.name === 'Read');
          const result = await read!.execute({ file_path: 'TEST_RESULTS.txt' }, { workspaceRoot: cwd, agentId: 'verifier', toolUseId: 'v1' });
          return result.content.includes('FAILED') ? { ok: false, reason: 'test results show failures' } : { ok: true };
        },
      };
      let toolNames: string[] = [];
      const engine = new HookEngine({
        agentEvaluator: { evaluate: (req) => ((toolNames = req.tools.map((t) => t.name)), evaluator.evaluate(req)) },
      });
      engine.addSettings('project', { hooks: { Stop: [{ hooks: [{ type: 'agent', prompt: 'Verify the tests pass' }] }] } });
      expect(await engine.run('Stop', { stop_hook_active: false }, session)).toMatchObject({ blocked: true, reason: 'test results show failures' });
      expect(toolNames.sort()).toEqual(['Glob', 'Grep', 'Read']);
    });

    it('a prompt hook without an evaluator is a non-blocking error', async () => {
      const engine = new HookEngine();
      engine.addSettings('project', { hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'done?' }] }] } });
      const r = await engine.run('Stop', { stop_hook_active: false }, session);
      expect(r.blocked).toBe(false);
      expect(r.outcomes[0]).toMatchObject({ result: 'error', reason: expect.stringContaining('no PromptEvaluator') });
    });

    it('a prompt hook that outlives its timeout is reported and the evaluation is aborted', async () => {
      let aborted = false;
      const engine = new HookEngine({
        promptEvaluator: {
          evaluate: ({ signal }) =>
            new Promise((resolve) => {
              signal.addEventListener('abort', () => {
                aborted = true;
                resolve({ ok: false, reason: 'too late' });
              });
            }),
        },
      });
      engine.addSettings('project', { hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: 'done?', timeout: 0.1 }] }] } });
      const r = await engine.run('Stop', { stop_hook_active: false }, session);
      expect(r.blocked).toBe(false);
      expect(r.outcomes[0].result).toBe('timeout');
      expect(aborted).toBe(true);
    });
  });
});
