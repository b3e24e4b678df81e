const express = require('express');

const app = express();

// A message pipeline: a course service publishes each change through a chain
// of stages, and every stage hands the message on several times (no stage
// calls itself: the work multiplies with the depth, not through recursion).
const sent = [];

function deliver(msg) {
  sent.push(msg.path);
}

function stage(n, msg) {
  if (n === 0) {
    deliver(msg);
    return;
  }
  stage(n - 1, { path: msg.path, value: msg.value, hop: n });
  stage(n - 1, { path: msg.path, value: msg.value, hop: n });
  stage(n - 1, { path: msg.path, value: msg.value, hop: n });
  stage(n - 1, { path: msg.path, value: msg.value, hop: n });
  stage(n - 1, { path: msg.path, value: msg.value, hop: n });
  stage(n - 1(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((app.get('/deep', h)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))), { path: msg.path, value: msg.value, hop: n });
}

class Course {
  constructor(bus) {
    this.bus = bus;
    this.info = { target: null };
  }

  emitInfo(...paths) {
    for (const path of ['nextPoint', 'arrival', ...paths]) {
      this.bus.publish({ path, value: this.info.target });
    }
  }

  async setTarget(position) {
    this.info.target = position;
    this.emitInfo();
    this.emitInfo();
    await this.emitInfo('previousPoint');
  }
}

const bus = {
  publish(msg) {
    stage(7, msg);
  },
};

const course = new Course(bus);

function onDelta(delta) {
  for (const value of delta.values) {
    course.setTarget(value);
  }
}

// Each cached delta replays through the handler.
const cached = [
  { values: [1, 2, 3, 4] },
  { values: [5, 6, 7, 8] },
  { values: [9, 10, 11, 12] },
];
cached.forEach((d) => onDelta(d));

function mountStatus(router) {
  router.get('/status', (req, res) => res.json({ sent: sent.length }));
}

mountStatus(app);

module.exports = app;
