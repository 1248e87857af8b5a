import { Controller, Get, Header } from '@nestjs/common';
import { buildAsyncApiDocument } from './asyncapi-document';
import { renderAsyncApiPage } from './asyncapi-page';
import { publishedEvents } from './published-events';

/** Public like the OpenAPI document: the event contract and a page listing it. Built once, from the contracts. */
@Controller('api')
export class AsyncApiController {
  private readonly document = buildAsyncApiDocument(publishedEvents, process.env.HEADSPACE_VERSION ?? '1.0.0');
  private readonly page = renderAsyncApiPage(publishedEvents, this.document);

  @Get('asyncapi.json')
  asyncapi() {
    return this.document;
  }

  @Get('docs/events')
  @Header('Content-Type', 'text/html; charset=utf-8')
  docs() {
    return this.page;
  }
}
