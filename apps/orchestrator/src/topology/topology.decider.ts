import type { EventData, topologyChosen } from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Chosen = EventData<typeof topologyChosen>;
export type RequestEvent = { type: 'request.topology-chosen'; data: Chosen };
export type RequestCommand = { type: 'choose-topology'; now: string } & Omit<Chosen, 'at'>;
export interface RequestState {
  chosen?: Chosen;
}

/** A request's topology is chosen once: a retried request keeps the first choice. */
export const requestDecider: Decider<RequestCommand, RequestState, RequestEvent> = {
  initialState: () => ({}),
  decide: decideByType<RequestCommand, RequestState, RequestEvent>({
    'choose-topology': ({ type: _t, now, ...data }, state) => (state.chosen ? [] : [{ type: 'request.topology-chosen', data: { ...data, at: now } }]),
  }),
  evolve: evolveByType<RequestState, RequestEvent>({ 'request.topology-chosen': (state, { data }) => ({ ...state, chosen: data }) }),
};
