// Stale output of an old `tsc` build. Not part of the source tree; ignored by .gitignore.
import { createServer } from 'node:http';
import express from 'express';
import { Server } from 'socket.io';
const app = express();
const httpServer = createServer(app);
app.use(express.json());
app.get('/ghost', (req, res) => {
    res.json({ haunted: true });
});
app.post('/api/v0/bookings', (req, res) => {
    res.status(201).json({ id: 'legacy' });
});
const io = new Server(httpServer, { path: '/ws' });
io.on('connection', (socket) => {
    socket.on('ghost:event', () => { });
    socket.emit('ghost:hello', {});
});
httpServer.listen(3000);
