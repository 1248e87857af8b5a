import { describe, expect, it } from 'vitest';
import { sandboxEnv } from './sandbox-env';
import { bwrapArgs, type SandboxPolicy } from './sandbox-policy';
import { prepareSandboxedSpawn, sandboxedArgv } from './sandbox-spawn';

const base: SandboxPolicy = { workspace: '/srv/runs/r1/worktrees/con', workspaceAccess: 'rw', network: false, env: { PATH: '/usr/bin:/bin', HOME: '/tmp/home' }, uid: 65534, maxProcesses: 256 };
const cmd = ['/bin/bash', '-c', 'make test'];

/** Every `flag a b` triple of the argv, as [a, b] pairs. */
const pairs = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [[args[i + 1], args[i + 2]]] : []));
const has = (args: string[], ...seq: string[]) => args.some((_, i) => seq.every((s, j) => args[i + j] === s));

describe('bwrapArgs (sandbox policy → bubblewrap argv)', () => {
  it('unshares every namespace, maps to an unprivileged uid, drops capabilities and dies with its parent', () => {
    const a = bwrapArgs(base, cmd);
    expect(a[0]).toBe('--unshare-all');
    expect(has(a, '--unshare-user', '--uid', '65534', '--gid', '65534')).toBe(true);
    expect(a).toEqual(expect.arrayContaining(['--die-with-parent', '--new-session']));
    expect(has(a, '--cap-drop', 'ALL')).toBe(true);
    expect(a).not.toContain('--share-net');
  });

  it('shares the network only when the policy allows it, with name resolution files', () => {
    const a = bwrapArgs({ ...base, network: true }, cmd);
    expect(a).toContain('--share-net');
    expect(pairs(a, '--ro-bind-try')).toContainEqual(['/etc/resolv.conf', '/etc/resolv.conf']);
    expect(pairs(bwrapArgs(base, cmd), '--ro-bind-try')).not.toContainEqual(['/etc/resolv.conf', '/etc/resolv.conf']);
  });

  it('mounts the system read-only and /etc only file by file, never shadow or the host root', () => {
    const a = bwrapArgs(base, cmd);
    expect(pairs(a, '--ro-bind')).toContainEqual(['/usr', '/usr']);
    expect(has(a, '--symlink', 'usr/bin', '/bin')).toBe(true);
    const etc = pairs(a, '--ro-bind-try').map(([src]) => src);
    expect(etc).toContain('/etc/passwd');
    expect(etc).not.toContain('/etc/shadow');
    expect(etc).not.toContain('/etc');
    const sources = [...pairs(a, '--bind'), ...pairs(a, '--ro-bind')].map(([src]) => src);
    for (const forbidden of ['/', '/etc', '/root', '/home', '/work', '/proc', '/sys', '/var', '/run']) expect(sources).not.toContain(forbidden);
    expect(has(a, '--proc', '/proc')).toBe(true);
    expect(has(a, '--dev', '/dev')).toBe(true);
    expect(has(a, '--tmpfs', '/tmp')).toBe(true);
  });

  it('binds a non-usr-merged /bin as a directory', () => {
    const a = bwrapArgs({ ...base, system: { '/bin': 'dir', '/lib': { symlink: 'usr/lib' } } }, cmd);
    expect(pairs(a, '--ro-bind')).toContainEqual(['/bin', '/bin']);
    expect(has(a, '--symlink', 'usr/lib', '/lib')).toBe(true);
    expect(a).not.toContain('/lib64');
  });

  it('mounts the worktree by workspaceAccess: rw, ro, or an empty private directory', () => {
    const ws = base.workspace;
    const rw = bwrapArgs({ ...base, writablePaths: ['/srv/runs/r1/checkout/.git'] }, cmd);
    expect(pairs(rw, '--bind')).toEqual([[ws, ws], ['/srv/runs/r1/checkout/.git', '/srv/runs/r1/checkout/.git']]);
    const ro = bwrapArgs({ ...base, workspaceAccess: 'ro', writablePaths: ['/g'] }, cmd);
    expect(pairs(ro, '--bind')).toEqual([]);
    expect(pairs(ro, '--ro-bind')).toEqual(expect.arrayContaining([[ws, ws], ['/g', '/g']]));
    const none = bwrapArgs({ ...base, workspaceAccess: 'none', protectedPaths: ['/g/config'] }, cmd);
    expect([...pairs(none, '--bind'), ...pairs(none, '--ro-bind')].map(([s]) => s)).not.toContain(ws);
    expect(has(none, '--tmpfs', ws)).toBe(true);
    expect(none).not.toContain('/g/config');
  });

  it('puts the private /tmp before a worktree inside it, protected paths after the writable binds, and the root read-only last', () => {
    const a = bwrapArgs({ ...base, workspace: '/tmp/ws', writablePaths: ['/g'], protectedPaths: ['/g/config', '/g/hooks'] }, cmd);
    const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));
    expect(at('--tmpfs', '/tmp')).toBeLessThan(at('--bind', '/tmp/ws'));
    expect(at('--bind', '/g', '/g')).toBeLessThan(at('--ro-bind', '/g/config'));
    expect(at('--remount-ro', '/')).toBeGreaterThan(at('--ro-bind', '/g/hooks'));
  });

  it('clears the environment and sets exactly the policy env, then runs the command in the worktree', () => {
    const a = bwrapArgs({ ...base, cwd: `${base.workspace}/src` }, cmd);
    expect(a.indexOf('--clearenv')).toBeGreaterThan(0);
    expect(pairs(a, '--setenv')).toEqual([
      ['HOME', '/tmp/home'],
      ['PATH', '/usr/bin:/bin'],
    ]);
    expect(a.slice(-6)).toEqual(['--chdir', `${base.workspace}/src`, '--', ...cmd]);
  });

  it('leaves out the user namespace when the host cannot make one (setuid bwrap)', () => {
    const { uid: _, ...noUser } = base;
    expect(bwrapArgs(noUser, cmd)).not.toContain('--unshare-user');
  });
});

describe('sandboxEnv (allow-list)', () => {
  it('keeps only harmless names, never secrets, with a private HOME and a system PATH', () => {
    const env = sandboxEnv(
      { PATH: '/root/.cargo/bin:/usr/bin', HOME: '/root', ANTHROPIC_API_KEY: 'sk-ant-x', DATABASE_URL: 'postgres://u:p@h/db', NATS_URL: 'nats://127.0.0.1:4222', LANG: 'en_US.UTF-8', GIT_AUTHOR_NAME: 'Con', RANDOM_THING: 'x' },
      { pathPrefix: ['/opt/node/bin'], allow: ['RANDOM_THING', 'GITHUB_TOKEN'], extra: { HEADSPACE_SESSION_ID: 's1', SOME_API_KEY: 'k' } },
    );
    expect(env).toEqual({
      PATH: '/opt/node/bin:/usr/local/bin:/usr/bin:/bin',
      HOME: '/tmp/home',
      USER: 'agent',
      LOGNAME: 'agent',
      SHELL: '/bin/bash',
      TMPDIR: '/tmp',
      LANG: 'en_US.UTF-8',
      TERM: 'dumb',
      GIT_AUTHOR_NAME: 'Con',
      RANDOM_THING: 'x',
      HEADSPACE_SESSION_ID: 's1',
    });
  });
});

describe('sandboxedArgv (what starts bubblewrap)', () => {
  it('joins the pids cgroup first when there is one', () => {
    const { file, args } = sandboxedArgv({ policy: { ...base, maxProcesses: 64 }, bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit' }, cmd, '/sys/fs/cgroup/pids/x/cgroup.procs');
    expect(file).toBe('/bin/sh');
    expect(args[0]).toBe('-c');
    expect(args[1]).toMatch(/^echo \$\$ > "\$1" \|\| exit 125; shift; exec "\$@"$/);
    expect(args.slice(2, 5)).toEqual(['sandbox', '/sys/fs/cgroup/pids/x/cgroup.procs', '/usr/bin/bwrap']);
    expect(args.slice(-3)).toEqual(cmd);
  });

  it('sets RLIMIT_NPROC hard and soft with prlimit when there is no cgroup', () => {
    const { file, args } = sandboxedArgv({ policy: { ...base, maxProcesses: 64 }, bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit' }, cmd);
    expect([file, ...args.slice(0, 3)]).toEqual(['/usr/bin/prlimit', '--nproc=64:64', '--', '/usr/bin/bwrap']);
  });

  it('starts bwrap directly when the host has neither', () => {
    const { file, args } = sandboxedArgv({ policy: base, bwrap: '/usr/bin/bwrap' }, cmd);
    expect(file).toBe('/usr/bin/bwrap');
    expect(args[0]).toBe('--unshare-all');
  });
});

describe('prepareSandboxedSpawn', () => {
  it('puts a backstop time limit inside, past the caller\'s own, so a crashed caller leaves no sandbox running', async () => {
    const spawned = await prepareSandboxedSpawn({ policy: base, bwrap: '/usr/bin/bwrap' }, cmd, 120_000);
    expect(spawned.args.slice(-8)).toEqual(['--', '/usr/bin/timeout', '-s', 'KILL', '130s', ...cmd]);
    expect(spawned.env).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' });
    await spawned.cleanup();
  });
});
