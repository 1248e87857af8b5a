import type { HookOutcome, HookRunResult } from '@headspace/agent-runtime';
import { describe, expect, it } from 'vitest';
import { claudeHookOutput, enginePayload } from './claude-hook-output';

const result = (over: Partial<HookRunResult> & Pick<HookRunResult, 'event'>): HookRunResult => ({ decision: 'none', blocked: false, additionalContext: [], feedback: [], outcomes: [], ...over });
const outcome = (over: Partial<HookOutcome>): HookOutcome => ({ event: 'PreToolUse', scope: 'user', source: 's', handler: 'command', label: 'l', result: 'noop', durationMs: 1, ...over });

describe('claudeHookOutput (the engine’s result as Claude Code’s hook output JSON)', () => {
  it('given a PreToolUse deny, then permissionDecision deny with the reason', () => {
    expect(claudeHookOutput('PreToolUse', result({ event: 'PreToolUse', decision: 'deny', blocked: true, reason: 'no rm' }))).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm' },
    });
  });

  it('given a PreToolUse allow, then no decision: the CLI’s own permission rules still decide', () => {
    expect(claudeHookOutput('PreToolUse', result({ event: 'PreToolUse', decision: 'allow' }))).toEqual({});
  });

  it('given PostToolUse context and feedback, then additionalContext for the model and a block with the reasons', () => {
    expect(claudeHookOutput('PostToolUse', result({ event: 'PostToolUse', decision: 'deny', additionalContext: ['a', 'b'], feedback: ['lint failed'] }))).toEqual({
      decision: 'block',
      reason: 'lint failed',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'a\n\nb' },
    });
  });

  it('given a Stop or SubagentStop deny, then decision block (keep working); no hookSpecificOutput, which the CLI refuses there', () => {
    expect(claudeHookOutput('Stop', result({ event: 'Stop', decision: 'deny', blocked: true, reason: 'tests first', additionalContext: ['x'] }))).toEqual({ decision: 'block', reason: 'tests first' });
    expect(claudeHookOutput('SubagentStop', result({ event: 'SubagentStop', decision: 'deny', reason: 'again', feedback: ['again'] }))).toEqual({ decision: 'block', reason: 'again' });
  });

  it('given a blocked prompt, a stop request and a system message, then block, continue false and the message', () => {
    expect(
      claudeHookOutput('UserPromptSubmit', result({ event: 'UserPromptSubmit', decision: 'deny', blocked: true, reason: 'secret in prompt', stopAgent: { reason: 'halt' }, outcomes: [outcome({ systemMessage: 'seen' })] })),
    ).toEqual({ decision: 'block', reason: 'secret in prompt', continue: false, stopReason: 'halt', systemMessage: 'seen' });
  });
});

describe('enginePayload (the CLI’s hook input as the engine’s payload)', () => {
  it('given a Bash PostToolUse, then its stdout and stderr as the response text', () => {
    expect(enginePayload('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1', tool_response: { stdout: 'a', stderr: 'b', interrupted: false } })).toEqual({
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 't1',
      tool_response: { content: 'a\nb', is_error: false },
    });
  });

  it('given missing or odd fields, then safe defaults', () => {
    expect(enginePayload('PreToolUse', { tool_input: 'x' })).toEqual({ tool_name: '', tool_input: {}, tool_use_id: '' });
    expect(enginePayload('SessionStart', { source: 'weird' })).toEqual({ source: 'startup' });
    expect(enginePayload('Stop', { stop_hook_active: true })).toEqual({ stop_hook_active: true });
  });
});
