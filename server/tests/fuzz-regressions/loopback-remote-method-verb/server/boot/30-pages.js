module.exports = function (app) {
  const pages = app.loopback.Router();
  pages.get('/help', (req, res) => res.send('help'));
  app.use(pages);
};
