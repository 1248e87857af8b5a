export * from './sandbox-policy';
export * from './sandbox-env';
export * from './sandbox-spawn';
export * from './sandbox-availability';
export * from './pids-cgroup';
export * from './git-mounts';
export * from './create-sandbox';
