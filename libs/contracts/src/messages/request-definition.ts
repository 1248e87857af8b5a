import type { z } from 'zod';
import { namespacedSubject } from './namespace';
import type { ServiceName } from './service-names';

/**
 * A command or query contract, carried over NATS request/reply to the owning service's queue group.
 * Subjects: `hs.cmd.<service>.<name>` and `hs.qry.<service>.<name>`.
 */
export interface RequestDefinition<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly kind: 'command' | 'query';
  readonly service: ServiceName;
  readonly name: string;
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
}

function define<Req extends z.ZodType, Res extends z.ZodType>(
  kind: 'command' | 'query',
  def: { service: ServiceName; name: string; request: Req; response: Res },
): RequestDefinition<Req, Res> {
  const subject = `hs.${kind === 'command' ? 'cmd' : 'qry'}.${def.service}.${def.name}`;
  return {
    kind,
    ...def,
    get subject() {
      return namespacedSubject(subject);
    },
  };
}

export const defineCommand = <Req extends z.ZodType, Res extends z.ZodType>(def: {
  service: ServiceName; name: string; request: Req; response: Res;
}) => define('command', def);

export const defineQuery = <Req extends z.ZodType, Res extends z.ZodType>(def: {
  service: ServiceName; name: string; request: Req; response: Res;
}) => define('query', def);

export type RequestOf<D> = D extends RequestDefinition<infer Req> ? z.input<Req> : never;
export type ResponseOf<D> = D extends RequestDefinition<z.ZodType, infer Res> ? z.output<Res> : never;
