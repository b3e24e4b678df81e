import express, { type NextFunction, type Request, type Response } from 'express';

import { health, projects, tasks } from '@/routes';

const API_PREFIX = '/api/v1';

export function createApp() {
  const app = express();

  app.use(express.json());

  app.use('/healthz', health);
  app.use(`${API_PREFIX}/tasks`, tasks);
  app.use(`${API_PREFIX}/projects`, projects);

  app.use((req: Request, res: Response) => {
    res.status(404).json({ error: 'not found' });
  });

  app.use((err: Error, req: Request, res: Response, _next: NextFunction) => {
    console.error(err);
    res.status(500).json({ error: 'internal error' });
  });

  return app;
}
