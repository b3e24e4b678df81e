const express = require('express');

module.exports = function mountAdmin(app, done) {
  const admin = express.Router();
  admin.post('/flush', (req, res) => res.sendStatus(204));
  app.use('/admin', admin);
  done();
};
