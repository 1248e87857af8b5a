import { ErrorCodes, HeadspaceError, type RunTask } from '@headspace/contracts';

/** A plan must name each task once, depend only on tasks in it, and have no cycle. */
export function checkTaskGraph(tasks: readonly Pick<RunTask, 'key' | 'dependsOn'>[]): void {
  const keys = new Set<string>();
  tasks.forEach((task, i) => {
    if (keys.has(task.key)) throw invalid(`Task key "${task.key}" is used twice`, `tasks.${i}.key`);
    keys.add(task.key);
  });
  tasks.forEach((task, i) => {
    const unknown = task.dependsOn.find((d) => !keys.has(d));
    if (unknown) throw invalid(`Task ${task.key} depends on "${unknown}", which is not in the plan`, `tasks.${i}.dependsOn`);
  });
  const deps = new Map(tasks.map((t) => [t.key, t.dependsOn]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (key: string, path: string[]): void => {
    if (state.get(key) === 'done') return;
    if (state.get(key) === 'visiting') throw invalid(`Circular dependency: ${[...path, key].join(' → ')}`, 'tasks');
    state.set(key, 'visiting');
    for (const d of deps.get(key) ?? []) visit(d, [...path, key]);
    state.set(key, 'done');
  };
  for (const t of tasks) visit(t.key, []);
}

const invalid = (message: string, field: string) => new HeadspaceError(ErrorCodes.runTasksInvalid, message, { field });
