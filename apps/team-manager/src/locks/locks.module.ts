import { Module } from '@nestjs/common';
import { FileLockRepository } from './file-lock.repository';
import { FileLocksProjection } from './file-locks.projection';
import { ListFileLocksHandler } from './list-file-locks/list-file-locks.handler';
import { LockFileHandler } from './lock-file/lock-file.handler';
import { ReleaseLocksOnCompletion } from './release-on-task-completed/release-locks-on-completion.process';
import { ReleaseLocksOnTermination } from './release-on-teammate-terminated/release-locks-on-termination.process';
import { ReleaseHolderLocksHandler } from './release-holder-locks/release-holder-locks.handler';
import { UnlockFileHandler } from './unlock-file/unlock-file.handler';

/** File locks (seed 003 Req 6.4): one lock per workspace path, stale locks broken, released on task completion and when their teammate is terminated. */
@Module({
  providers: [FileLockRepository, FileLocksProjection, ReleaseLocksOnCompletion, ReleaseLocksOnTermination],
  controllers: [LockFileHandler, UnlockFileHandler, ReleaseHolderLocksHandler, ListFileLocksHandler],
})
export class LocksModule {}
