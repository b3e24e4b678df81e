import { randomUUID } from 'node:crypto';
import type { Server, Socket } from 'socket.io';

import type { ChatMessage, ClientToServerEvents, ServerToClientEvents } from './types.ts';

type ChatServer = Server<ClientToServerEvents, ServerToClientEvents>;
type ChatSocket = Socket<ClientToServerEvents, ServerToClientEvents>;

const MAX_LENGTH = 1000;

export function registerChatHandlers(io: ChatServer, socket: ChatSocket): void {
  socket.on('chat:join', (room) => {
    socket.join(`chat:${room}`);
    io.to(`chat:${room}`).emit('chat:system', { room, text: `${socket.id} joined` });
  });

  socket.on('chat:leave', (room) => {
    socket.leave(`chat:${room}`);
  });

  socket.on('chat:message', (payload, ack) => {
    const text = payload.text.trim();
    if (!text || text.length > MAX_LENGTH) {
      ack({ ok: false, error: 'message must be 1-1000 characters' });
      return;
    }
    const message: ChatMessage = {
      id: randomUUID(),
      room: payload.room,
      from: socket.id,
      text,
      sentAt: new Date().toISOString(),
    };
    socket.broadcast.emit('chat:message', message);
    ack({ ok: true, id: message.id });
  });
}
