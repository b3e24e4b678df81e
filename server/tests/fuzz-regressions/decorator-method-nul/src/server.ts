import 'reflect-metadata';
import express from 'express';
import { useExpressServer } from 'routing-controllers';
import { BookController } from './controllers/BookController';
import { HealthController } from './controllers/HealthController';

const app = express();
app.use(express.json());

useExpressServer(app, {
  routePrefix: '/api',
  controllers: [BookController, 'src/controllers/v2/*Controller.ts'],
  authorizationChecker: async (action) => Boolean(action.request.headers.authorization),
});

// Mounted outside routing-controllers: no prefix.
app.get('/', (req, res) => res.send('library'));

app.listen(3000);

export { HealthController };
