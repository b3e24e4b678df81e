// Minimal berth-map client used by the harbor dashboard (and for manual testing:
// `node client/src/socket.js`). Connects to both the default and the /ops namespace.
import { io } from 'socket.io-client';

const SERVER_URL = process.env.HARBOR_URL ?? 'http://localhost:3000';
const BERTH_ID = process.env.BERTH_ID ?? '6f1c1f2e-8d1a-4c55-9a0e-1d7f0b7f2a10';

export const socket = io(SERVER_URL, { path: '/ws', transports: ['websocket'] });
export const ops = io('http://localhost:3000/ops', { path: '/ws' });

socket.on('connect', () => {
  socket.emit('berth:subscribe', BERTH_ID, (res) => {
    if (!res.ok) console.error(`subscribe failed: ${res.error}`);
    else console.log(`watching ${res.room}`);
  });
});

socket.on('booking:created', (booking) => {
  console.log(`new ${booking.status} booking ${booking.id} on berth ${booking.berthId}`);
});

socket.on('ping:check', (ack) => {
  ack(Date.now());
});

ops.on('ops:alert', (alert) => {
  console.log(`[ops:${alert.level}] ${alert.message}`);
});

// The server has no handler for this yet (typing indicators are planned).
export function notifyTyping(room) {
  socket.emit('chat:typing', { room });
}
