const express = require('express');
const orders = require('./routes/orders');
const items = require('./routes/items').default;

const app = express();
app.use(express.json());
app.use('/orders', orders);
app.use('/items', items);

module.exports = app;
