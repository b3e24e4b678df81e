import express, { Request, Response } from 'express';
import reports from './routes/reports';

const API = '/api';
const VERSION = 'v2';

const app = express();

app.get(`${API}/${VERSION}/health`, (_req: Request, res: Response) => {
  res.json({ status: 'ok' });
});

app.use(`${API}/${VERSION}/reports`, reports);

export default app;
