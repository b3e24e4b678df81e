import {
  Authorized,
  Body,
  Delete,
  Get,
  HttpCode,
  JsonController,
  OnUndefined,
  Param,
  Post,
  QueryParam,
} from 'routing-controllers';
import { NewBook } from '../dto/NewBook';

@JsonController('/books')
export class BookController {
  @Get()
  list(@QueryParam('author') author: string, @QueryParam('limit') limit: number) {
    return [];
  }

  @Get('/:id')
  one(@Param('id') id: number) {
    return { id };
  }

  @Post()
  @HttpCode(201)
  @Authorized()
  add(@Body() book: NewBook) {
    return book;
  }

  @Delete('/:id')
  @OnUndefined(204)
  @Authorized('admin')
  remove(@Param('id') id: number) {}
}
