import { Module } from '@nestjs/common';
import { AcquirePersonaHandler } from './acquire-persona/acquire-persona.handler';
import { CancelPersonaRequestHandler } from './cancel-persona-request/cancel-persona-request.handler';
import { GetPersonaRequestHandler } from './get-persona-request/get-persona-request.handler';
import { ListPersonasHandler } from './list-personas/list-personas.handler';
import { PersonaBoardProjection } from './persona-board.projection';
import { PersonaRegistry } from './persona-registry.service';
import { RegisterPersonaHandler } from './register-persona/register-persona.handler';
import { ReleasePersonaHandler } from './release-persona/release-persona.handler';
import { SetMaxConcurrentAgentsHandler } from './set-max-concurrent-agents/set-max-concurrent-agents.handler';
import { SetPoolMembershipHandler } from './set-pool-membership/set-pool-membership.handler';
import { UpdatePersonaHandler } from './update-persona/update-persona.handler';

/** Personas and pools (seed 000 §5, §8): the registry stream, its leases and queue, the persona board projection. */
@Module({
  providers: [PersonaRegistry, PersonaBoardProjection],
  controllers: [
    RegisterPersonaHandler,
    UpdatePersonaHandler,
    SetPoolMembershipHandler,
    SetMaxConcurrentAgentsHandler,
    AcquirePersonaHandler,
    ReleasePersonaHandler,
    CancelPersonaRequestHandler,
    ListPersonasHandler,
    GetPersonaRequestHandler,
  ],
  exports: [PersonaRegistry],
})
export class PersonasModule {}
