import express, { type Request, type Response } from 'express';
import type { Server } from 'socket.io';

import { requireAuth, requireRole } from '../middleware/auth.js';
import { broadcastTo } from '../sockets/broadcast.js';

// Mounted by src/server.js at /admin. A mounted sub-app inherits the parent's
// settings, so req.app.get('io') returns the Socket.IO server set there.
const admin = express();

admin.use(requireAuth, requireRole('admin'));

let maintenance: { active: boolean; reason?: string; until?: string } = { active: false };

admin.get('/metrics', (req: Request, res: Response) => {
  const io = req.app.get('io') as Server | undefined;
  res.json({
    memory: process.memoryUsage().rss,
    sockets: io?.engine.clientsCount ?? 0,
    maintenance,
  });
});

/** Put the harbor into maintenance mode and alert the ops console. */
admin.post('/maintenance', (req: Request<{}, unknown, { reason?: string; until?: string }>, res: Response) => {
  const io = req.app.get('io') as Server | undefined;
  maintenance = { active: true, reason: req.body?.reason ?? 'unspecified', until: req.body?.until };
  io?.of('/ops').emit('ops:alert', { level: 'warning', message: `maintenance: ${maintenance.reason}` });
  if (io) broadcastTo(io, 'harbor:maintenance', maintenance);
  res.status(202).json(maintenance);
});

admin.delete('/maintenance', (req: Request, res: Response) => {
  maintenance = { active: false };
  res.sendStatus(204);
});

admin.delete('/sessions/:sessionId', (req: Request<{ sessionId: string }>, res: Response) => {
  const io = req.app.get('io') as Server | undefined;
  io?.in(req.params.sessionId).disconnectSockets(true);
  res.sendStatus(204);
});

export default admin;
