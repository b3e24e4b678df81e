import { createExpressServer } from 'routing-controllers';
import { BookController } from './controllers/BookController';

const app = createExpressServer({ controllers: [BookController] });
app.listen(3000);
