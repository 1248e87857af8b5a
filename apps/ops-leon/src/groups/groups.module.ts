import { Module } from '@nestjs/common';
import { GetGroupHandler } from './get-group/get-group.handler';
import { GroupLifecycle } from './group-lifecycle.service';
import { GroupStateGauge } from './group-state-gauge';
import { GroupsProjection } from './groups.projection';
import { ListGroupTransitionsHandler } from './list-group-transitions/list-group-transitions.handler';
import { ListGroupsHandler } from './list-groups/list-groups.handler';
import { TransitionGroupHandler } from './transition-group/transition-group.handler';

/** Exception groups: their lifecycle, read model and queries. */
@Module({
  providers: [GroupLifecycle, GroupsProjection, GroupStateGauge],
  controllers: [TransitionGroupHandler, ListGroupsHandler, GetGroupHandler, ListGroupTransitionsHandler],
  exports: [GroupLifecycle],
})
export class GroupsModule {}
