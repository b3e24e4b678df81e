const express = require('express');
const Server = require('./server');

const app = express();
app.use('/parse', new Server().app);
app.listen(1337);
