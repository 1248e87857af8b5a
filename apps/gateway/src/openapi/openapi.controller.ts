import { Controller, Get, Header } from '@nestjs/common';
import { apiRoutes } from '../routes/api-routes';
import { renderDocsPage } from './docs-page';
import { buildOpenApiDocument } from './openapi-document';

/** Public: the API description and a page listing it. Built once, from the route table. */
@Controller('api')
export class OpenApiController {
  private readonly document = buildOpenApiDocument(apiRoutes, process.env.HEADSPACE_VERSION ?? '1.0.0');
  private readonly page = renderDocsPage(apiRoutes);

  @Get('openapi.json')
  openapi() {
    return this.document;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  docs() {
    return this.page;
  }
}
