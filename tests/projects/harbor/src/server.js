import { createServer } from 'node:http';
import express from 'express';
import cors from 'cors';
import { errors as celebrateErrors } from 'celebrate';
import { Server } from 'socket.io';

import apiRouter from './routes/index.js';
import adminApp from './admin/app.ts';
import { requestLogger } from './middleware/logger.js';
import { registerSocketHandlers } from './sockets/index.js';

const PORT = Number(process.env.PORT ?? 3000);

const app = express();
const httpServer = createServer(app);

app.disable('x-powered-by');
app.use(express.json({ limit: '256kb' }));
app.use(requestLogger);
app.use(cors());

app.get('/health', (req, res) => {
  res.json({ status: 'ok', uptime: Math.round(process.uptime()) });
});

app.use('/api', apiRouter);
app.use('/admin', adminApp);

if (process.env.NODE_ENV !== 'production') app.get('/debug/routes', (req, res) => {
  res.json({
    mounts: ['/api', '/admin'],
    socketPath: '/ws',
    requestId: req.get('X-Request-Id') ?? null,
  });
});

app.use((req, res) => {
  res.status(404).json({ error: 'not found' });
});

app.use(celebrateErrors());

// Express 5 forwards rejected promises from async handlers here.
app.use((err, req, res, next) => {
  if (res.headersSent) return next(err);
  const status = err.status ?? err.statusCode ?? 500;
  res.status(status).json({ error: status === 500 ? 'internal error' : err.message });
});

const io = new Server(httpServer, {
  path: '/ws',
  cors: { origin: process.env.CORS_ORIGIN ?? '*' },
});
app.set('io', io);
registerSocketHandlers(io);

httpServer.listen(PORT, () => {
  console.log(`harbor listening on http://localhost:${PORT} (socket path /ws)`);
});

export { app, io, httpServer };
