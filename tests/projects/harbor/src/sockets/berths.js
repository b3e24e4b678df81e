import { randomUUID } from 'node:crypto';

import { berthFeed } from '../lib/berth-feed.js';

// Every berth-level change is pushed as `berth:<kind>:updated`.
export const BERTH_UPDATE_KINDS = ['status', 'pricing', 'availability'];

const roomFor = (berthId) => `berth:${berthId}`;

export function registerBerthHandlers(io, socket) {
  socket.on('berth:subscribe', (berthId, ack) => {
    if (typeof berthId !== 'string' || berthId.length === 0) {
      ack({ ok: false, error: 'berthId must be a non-empty string' });
      return;
    }
    const room = roomFor(berthId);
    socket.join(room);
    ack({ ok: true, room });
  });

  socket.on('berth:unsubscribe', (berthId) => {
    socket.leave(roomFor(berthId));
  });

  // Tentative hold placed from the live berth map; the REST API confirms it later.
  socket.on('booking:hold', (request, ack) => {
    const booking = {
      id: randomUUID(),
      berthId: request.berthId,
      shipId: request.shipId,
      arrival: request.arrival,
      nights: request.nights ?? 1,
      status: 'pending',
      heldBy: socket.id,
    };
    io.to(roomFor(booking.berthId)).emit('booking:created', booking);
    if (typeof ack === 'function') ack({ ok: true, id: booking.id });
  });
}

// Bridges the in-process berth feed onto Socket.IO rooms (called once at startup).
export function bridgeBerthUpdates(io) {
  for (const kind of BERTH_UPDATE_KINDS) {
    berthFeed.on(kind, (berthId, data) => {
      io.to(roomFor(berthId)).emit(`berth:${kind}:updated`, { berthId, ...data });
    });
  }
}
