import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getPrices } from '@headspace/contracts';
import { PriceCatalog } from '../price-catalog.service';

/** `prices.get`: the price table in effect. */
@Controller()
export class GetPricesHandler {
  constructor(
    private readonly catalog: PriceCatalog,
  ) {}

  @MessagePattern(getPrices)
  async handle() {
    return { table: (await this.catalog.fresh()).table };
  }
}
