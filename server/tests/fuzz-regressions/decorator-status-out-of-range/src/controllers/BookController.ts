import { JsonController, Post, Body, HttpCode, OnUndefined, Get } from 'routing-controllers';

@JsonController('/api/books')
export class BookController {
  @Post('/')
  @HttpCode(2099999999999999999999999999999999)
  create(@Body() book: { title: string }) {
    return book;
  }

  @Get('/:id')
  @OnUndefined(20.5)
  one() {
    return undefined;
  }
}
