import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getPrices } from '@headspace/contracts';
import { PriceCatalog } from '../price-catalog.service';

/** `prices.get`: the price table in effect and the warnings for its retired or retiring models. */
@Controller()
export class GetPricesHandler {
  constructor(
    private readonly catalog: PriceCatalog,
  ) {}

  @MessagePattern(getPrices)
  async handle() {
    const book = await this.catalog.fresh();
    return { table: book.table, warnings: this.catalog.retirementWarnings() };
  }
}
