import { HeadspaceError, type RequestDefinition } from '@headspace/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import { request, type SendRequestOptions } from './send-request';

/** Sends and returns the HeadspaceError the request fails with; a success is an error (specs' "expect it to fail"). */
export async function requestFailure(nc: NatsConnection, definition: RequestDefinition, body: unknown, options?: SendRequestOptions): Promise<HeadspaceError> {
  try {
    await request(nc, definition, body as never, options);
  } catch (error) {
    if (error instanceof HeadspaceError) return error;
    throw error;
  }
  throw new Error(`expected ${definition.subject} to fail`);
}
