const express = require('express');

// Routes kept in a table, mounted later with `app[method].call(app, ...)`.
class PromiseRouter {
  constructor() {
    this.routes = [];
    this.mountRoutes();
  }

  route(method, path, handler) {
    this.routes.push({ method, path, handler });
  }

  mountOnto(expressApp) {
    this.routes.forEach((route) => {
      const method = route.method.toLowerCase();
      expressApp[method].call(expressApp, route.path, route.handler);
    });
    return expressApp;
  }

  expressRouter() {
    return this.mountOnto(express.Router());
  }
}

module.exports = PromiseRouter;
