const express = require('express');
const { Server } = require('socket.io');

const app = express();
app.use(express.static('public'));
app.get('/health', (req, res) => res.send('ok'));
const io = new Server(app.listen(3000));
io.on('connection', (socket) => {
  socket.on('ping', () => socket.emit('pong'));
});
