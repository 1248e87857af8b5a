import { Controller, Delete, Get, HttpCode, Inject, Patch, Post, Put, Req, Res, SetMetadata, type Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiRoute, HttpMethod } from './api-route';
import { RouteDispatcher } from './route-dispatcher.service';

export const API_ROUTE = 'headspace:api-route';

const methodDecorator: Record<HttpMethod, (path: string) => MethodDecorator> = {
  GET: Get,
  POST: Post,
  PUT: Put,
  PATCH: Patch,
  DELETE: Delete,
};

/**
 * One Nest controller whose handlers are generated from the route table, so each route is a real
 * Nest route (guards, filters, Fastify's router) without a hand-written method per operation.
 */
export function registryController(routes: readonly ApiRoute[]): Type {
  @Controller()
  class RegistryController {
    constructor(@Inject(RouteDispatcher) readonly dispatcher: RouteDispatcher) {}
  }
  const proto = RegistryController.prototype as unknown as Record<string, unknown>;
  for (const route of routes) {
    const name = route.operationId;
    proto[name] = function (this: RegistryController, req: FastifyRequest, reply: FastifyReply) {
      return this.dispatcher.dispatch(route, req, reply);
    };
    const descriptor = Object.getOwnPropertyDescriptor(proto, name) as PropertyDescriptor;
    Req()(proto, name, 0);
    Res({ passthrough: true })(proto, name, 1); // response headers (Headspace-Position); Nest still sends the result
    for (const decorate of [methodDecorator[route.method](route.path), HttpCode(route.status), SetMetadata(API_ROUTE, route)]) {
      decorate(proto, name, descriptor);
    }
  }
  return RegistryController;
}
