import { Controller, Get, Header } from '@nestjs/common';
import { buildAsyncApiDocument } from './asyncapi-document';
import { renderAsyncApiPage } from './asyncapi-page';
import { publishedEvents } from './published-events';

/**
 * Public like the OpenAPI document: the event contract and a page listing it. Built from the
 * contracts on first request (~50 ms, ~0.5 MB), not at start: most gateways are never asked.
 */
@Controller('api')
export class AsyncApiController {
  private document?: ReturnType<typeof buildAsyncApiDocument>;
  private page?: string;

  @Get('asyncapi.json')
  asyncapi() {
    return (this.document ??= buildAsyncApiDocument(publishedEvents, process.env.HEADSPACE_VERSION ?? '1.0.0'));
  }

  @Get('docs/events')
  @Header('Content-Type', 'text/html; charset=utf-8')
  docs() {
    return (this.page ??= renderAsyncApiPage(publishedEvents, this.asyncapi()));
  }
}
