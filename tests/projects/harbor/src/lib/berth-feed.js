import { EventEmitter } from 'node:events';

// In-process change feed for berths. This is a plain Node EventEmitter, NOT a
// Socket.IO emitter: src/sockets/berths.js bridges it onto Socket.IO rooms.
// Emitted as berthFeed.emit(kind, berthId, data) with kind 'status' | 'pricing' | 'availability'.
export const berthFeed = new EventEmitter();
berthFeed.setMaxListeners(50);
