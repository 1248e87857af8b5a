import { randomBytes } from 'node:crypto';
import { createTeam, listTasks, type TaskView } from '@headspace/contracts';
import type { z } from 'zod';
import type { TeamManagerHarness } from '../testing/team-manager-harness';

type WaitFor = <T>(probe: () => Promise<T | undefined>, options: { message: string }) => Promise<T>;

/**
 * Helpers shared by the task specs (they drive the service only through its commands and queries).
 * `waitFor` comes from the spec (@headspace/testing may only be imported by specs and src/testing).
 */
export function taskSpecKit(h: () => TeamManagerHarness, waitFor: WaitFor) {
  const newTeam = async (label = 'team') => {
    const name = `${label}-${randomBytes(4).toString('hex')}`;
    await h().send(createTeam, { name });
    return name;
  };
  /** The board as the query returns it, once `until` holds (the projection lags the log a little). */
  const board = (team: string, filter: Omit<z.input<typeof listTasks.request>, 'team'> = {}, until: (tasks: TaskView[]) => boolean = () => true) =>
    waitFor(
      async () => {
        const { tasks } = await h().send(listTasks, { team, ...filter });
        return until(tasks) ? tasks : undefined;
      },
      { message: `board of ${team} ${JSON.stringify(filter)}` },
    );
  const byId = (tasks: TaskView[], id: string) => tasks.find((t) => t.taskId === id);
  /** Events of the team's task streams (direct SQL only to count what was appended). */
  const eventCount = async (team: string) =>
    Number(
      (
        await h().db.pool.query(`SELECT count(*) AS n FROM team_manager.events WHERE stream_id = $1 OR stream_id LIKE $2`, [
          `tasklist-${team}`,
          `task-${team}.%`,
        ])
      ).rows[0].n,
    );
  return { newTeam, board, byId, eventCount };
}
