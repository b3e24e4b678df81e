import express from 'express';
import { useExpressServer } from 'routing-controllers';

const app = express();
useExpressServer(app, {
  routePrefix: '/api',
  controllers: ['src/controllers/v2/*Controller.ts'],
});
app.listen(3000);
