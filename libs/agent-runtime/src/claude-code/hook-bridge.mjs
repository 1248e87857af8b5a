/* global fetch, AbortSignal */
/**
 * Claude Code hook bridge: `node hook-bridge.mjs <policy.json>`, run by the CLI for each hook event
 * with the hook input JSON on stdin. PreToolUse calls are first checked against the session's
 * policy (checkout confinement, owned paths, allowed tools, denied commands), so a session is safe
 * without an engine; then the input is POSTed to HEADSPACE_HOOK_URL when set and the engine's
 * answer (the CLI's hook-output JSON) is printed. An unreachable engine denies PreToolUse (fail
 * closed) and has no opinion on the other events. Denials are appended to the policy's
 * `denialsPath` as JSON lines. No dependencies: it runs under any Node with a global fetch (18+).
 */
import fs from 'node:fs';
import path from 'node:path';

const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
const ALWAYS_ALLOWED = new Set(['StructuredOutput']);
/** Task is the CLI's older name of Agent. */
const canonical = (tool) => (tool === 'Task' ? 'Agent' : tool);

function readStdin() {
  return new Promise((resolve) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => (text += d));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', () => resolve(text));
  });
}

function globToRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Resolves symlinks of the deepest existing ancestor, so a link cannot lead a write out. */
function realish(p) {
  let head = p;
  const tail = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...tail);
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return p;
      tail.unshift(path.basename(head));
      head = parent;
    }
  }
}

function tokens(command) {
  return command.trim().split(/\s+/).filter((t) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(t));
}

/** A denied pattern matches a simple command that starts with its first word and has all its other words. */
function deniedCommand(command, patterns) {
  const parts = command.split(/&&|\|\||[;|\n]|\$\(|`/);
  for (const part of parts) {
    const words = tokens(part);
    if (words.length === 0) continue;
    const name = path.basename(words[0]);
    for (const pattern of patterns) {
      const p = tokens(pattern);
      if (p.length === 0 || p[0] !== name) continue;
      if (p.slice(1).every((w) => words.slice(1).includes(w))) return pattern;
    }
  }
  return undefined;
}

function checkPolicy(policy, input) {
  const tool = String(input.tool_name ?? '');
  const toolInput = input.tool_input && typeof input.tool_input === 'object' ? input.tool_input : {};
  const allowed = policy.allowedTools;
  if (Array.isArray(allowed) && !ALWAYS_ALLOWED.has(tool) && !allowed.map(canonical).includes(canonical(tool))) {
    return `Headspace policy: the ${tool} tool is not allowed for this session`;
  }
  if (WRITE_TOOLS.has(tool)) {
    const target = toolInput.file_path ?? toolInput.notebook_path;
    if (typeof target !== 'string' || target === '') return undefined;
    const root = realish(path.resolve(policy.checkoutRoot));
    const abs = realish(path.resolve(input.cwd || policy.checkoutRoot, target));
    const rel = path.relative(root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      return `Headspace policy: ${target} is outside the checkout ${policy.checkoutRoot}`;
    }
    const owned = policy.ownedPaths ?? [];
    const relPosix = rel.split(path.sep).join('/');
    if (owned.length > 0 && !owned.some((g) => globToRegExp(g).test(relPosix))) {
      return `Headspace policy: ${relPosix} is outside the owned paths (${owned.join(', ')})`;
    }
  }
  if (tool === 'Bash' && typeof toolInput.command === 'string') {
    const hit = deniedCommand(toolInput.command, policy.deniedBash ?? []);
    if (hit) return `Headspace policy: "${hit}" commands are not allowed`;
  }
  return undefined;
}

function recordDenial(policy, input, reason) {
  if (!policy.denialsPath) return;
  const line = { source: 'hook', toolName: input.tool_name, toolUseId: input.tool_use_id, toolInput: input.tool_input, reason };
  try {
    fs.appendFileSync(policy.denialsPath, `${JSON.stringify(line)}\n`);
  } catch {
    // the denial still stands; only its record is lost
  }
}

function denyOutput(reason) {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

function engineDenial(answer) {
  const hso = answer && answer.hookSpecificOutput;
  const decision = (hso && hso.permissionDecision) || answer.decision;
  if (decision !== 'deny' && decision !== 'block') return undefined;
  return (hso && hso.permissionDecisionReason) || answer.reason || 'denied by the Headspace hook engine';
}

async function askEngine(url, input, timeoutMs) {
  const headers = { 'content-type': 'application/json' };
  if (process.env.HEADSPACE_SESSION_ID) headers['x-headspace-session'] = process.env.HEADSPACE_SESSION_ID;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(input), signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  if (text.trim() === '') return undefined;
  const answer = JSON.parse(text);
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('the answer is not a JSON object');
  return answer;
}

let event;

async function main() {
  const raw = await readStdin();
  let input;
  try {
    input = JSON.parse(raw);
  } catch {
    return;
  }
  event = input.hook_event_name;
  const policy = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  if (event === 'PreToolUse') {
    const reason = checkPolicy(policy, input);
    if (reason) {
      recordDenial(policy, input, reason);
      process.stdout.write(JSON.stringify(denyOutput(reason)));
      return;
    }
  }
  const url = process.env.HEADSPACE_HOOK_URL;
  if (!url) return;
  try {
    const answer = await askEngine(url, input, Number(process.env.HEADSPACE_HOOK_TIMEOUT_MS) || 10_000);
    if (answer === undefined) return;
    if (event === 'PreToolUse') {
      const denied = engineDenial(answer);
      if (denied) recordDenial(policy, input, denied);
    }
    process.stdout.write(JSON.stringify(answer));
  } catch (error) {
    if (event !== 'PreToolUse') return;
    const reason = `Headspace hook engine unreachable (${error && error.message ? error.message : error}): tool call denied`;
    recordDenial(policy, input, reason);
    process.stdout.write(JSON.stringify(denyOutput(reason)));
  }
}

main().catch((error) => {
  process.stderr.write(`Headspace hook bridge failed: ${error && error.message ? error.message : error}\n`);
  // Fail closed for tool calls (exit 2 blocks one); elsewhere exit 2 would mean "keep working".
  process.exit(event === 'PreToolUse' ? 2 : 1);
});
