import { registerBerthHandlers, bridgeBerthUpdates } from './berths.js';
import { registerChatHandlers } from './chat.ts';
import { broadcastTo } from './broadcast.js';

const HEARTBEAT_MS = 30_000;

export function registerSocketHandlers(io) {
  io.on('connection', (socket) => {
    registerBerthHandlers(io, socket);
    registerChatHandlers(io, socket);

    const onPong = (err, responses) => {
      if (err) {
        console.warn(`socket ${socket.id} missed heartbeat`);
        return;
      }
      socket.data.lastPong = responses?.[0] ?? Date.now();
    };
    const heartbeat = setInterval(() => {
      socket.timeout(5000).emit('ping:check', onPong);
    }, HEARTBEAT_MS);

    socket.on('disconnect', (reason) => {
      clearInterval(heartbeat);
      console.log(`socket ${socket.id} left: ${reason}`);
    });
  });

  bridgeBerthUpdates(io);

  const ops = io.of('/ops');
  ops.on('connection', (socket) => {
    socket.emit('ops:alert', { level: 'info', message: 'connected to harbor ops' });

    socket.on('ops:ack', (alertId) => {
      console.log(`ops alert ${alertId} acknowledged by ${socket.id}`);
    });

    socket.on('ops:close-harbor', (payload) => {
      broadcastTo(io, 'harbor:closed', { reason: payload?.reason ?? 'weather' });
      ops.emit('ops:alert', { level: 'critical', message: 'harbor closed' });
    });

    socket.on('ops:reopen-harbor', () => {
      broadcastTo(io, 'harbor:reopened', {});
    });

    socket.on('disconnect', () => {
      console.log(`ops console ${socket.id} disconnected`);
    });
  });
}
