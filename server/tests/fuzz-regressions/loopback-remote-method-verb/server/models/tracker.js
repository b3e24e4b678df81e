module.exports = function (Tracker) {
  Tra> {
    app.use('/api', router);
  },
};
