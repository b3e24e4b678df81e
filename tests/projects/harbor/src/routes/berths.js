import { Router } from 'express';
import { celebrate, Joi, Segments } from 'celebrate';

import { BASE, PATHS } from './paths.js';
import { requireAuth, requireRole } from '../middleware/auth.js';
import { berthStore, bookingStore } from '../lib/stores.js';
import { berthFeed } from '../lib/berth-feed.js';

const router = Router();

const berthFields = {
  harbor: Joi.string().valid('north', 'south', 'east').required(),
  name: Joi.string().pattern(/^[A-Z]-\d{2}$/).required(),
  lengthMeters: Joi.number().positive().max(400).required(),
  depthMeters: Joi.number().positive().max(30).required(),
  nightlyRate: Joi.number().min(0).precision(2).required(),
};

/**
 * Search berths by harbor and date.
 * @tool berths.search
 * @sideEffect read
 * @scopes agent ui
 */
router.get('/', async (req, res) => {
  const limit = Math.min(Number(req.query.limit ?? 25), 100);
  const { harbor, minLength } = req.query;
  const items = await berthStore.list({
    limit,
    where: (berth) =>
      (!harbor || berth.harbor === harbor) &&
      (!minLength || berth.lengthMeters >= Number(minLength)),
  });
  res.json({ items, date: req.query.date ?? null });
});

/** Register a new berth. @tool berths.create @sideEffect write @scopes ui */
router.post(
  '/',
  requireAuth,
  requireRole('admin'),
  celebrate({ [Segments.BODY]: Joi.object(berthFields) }),
  async (req, res) => {
    const berth = await berthStore.create(req.body);
    res.status(201).json(berth);
  },
);

async function stats(req, res) {
  const berths = await berthStore.count();
  const bookings = await bookingStore.count();
  res.json({ berths, bookings, occupancy: berths ? bookings / berths : 0 });
}

async function recompute(req, res) {
  const berths = await berthStore.list({ limit: 1000 });
  for (const berth of berths) {
    berthFeed.emit('availability', berth.id, { recomputedAt: new Date().toISOString() });
  }
  res.status(202).json({ queued: berths.length });
}

// Maintenance endpoints are declared as data and registered in one go.
const table = [
  { method: 'get', path: '/stats', handler: stats },
  { method: 'post', path: '/recompute', handler: recompute },
];
for (const r of table) router[r.method](r.path, r.handler);

router.get(`${BASE}/export`, async (req, res) => {
  const format = req.query.format === 'csv' ? 'csv' : 'json';
  const berths = await berthStore.list({ limit: 1000 });
  if (format === 'csv') {
    const lines = berths.map((b) => [b.id, b.harbor, b.name, b.lengthMeters, b.depthMeters].join(','));
    res.type('text/csv').send(['id,harbor,name,lengthMeters,depthMeters', ...lines].join('\n'));
    return;
  }
  res.json(berths);
});

/**
 * Fetch one berth by id.
 * @tool berths.get
 * @sideEffect read
 * @scopes agent ui
 */
router.get(PATHS.berth, async (req, res) => {
  const berth = await berthStore.get(req.params.berthId);
  if (!berth) {
    return res.status(404).json({ error: 'not found' });
  }
  res.json(berth);
});

/**
 * Nights a berth is still free, starting at ?from=YYYY-MM-DD.
 * @tool berths.availability
 * @sideEffect read
 * @scopes agent
 */
router.get(PATHS.availability, async (req, res) => {
  const berth = await berthStore.get(req.params.berthId);
  if (!berth) {
    return res.status(404).json({ error: 'not found' });
  }
  const nights = Math.min(Number(req.query.nights ?? 7), 30);
  const taken = await bookingStore.list({ limit: 1000, where: (b) => b.berthId === berth.id });
  res.json({ berthId: berth.id, from: req.query.from ?? null, nights, taken: taken.length });
});

router.put(
  PATHS.berth,
  requireAuth,
  requireRole('admin'),
  celebrate({
    [Segments.PARAMS]: Joi.object({ berthId: Joi.string().uuid().required() }),
    [Segments.BODY]: Joi.object(berthFields),
  }),
  async (req, res) => {
    const berth = await berthStore.update(req.params.berthId, req.body);
    if (!berth) {
      return res.status(404).json({ error: 'not found' });
    }
    berthFeed.emit('status', berth.id, { name: berth.name, harbor: berth.harbor });
    berthFeed.emit('pricing', berth.id, { nightlyRate: berth.nightlyRate });
    res.json(berth);
  },
);

router.delete(PATHS.berth, requireAuth, requireRole('admin'), async (req, res) => {
  const removed = await berthStore.remove(req.params.berthId);
  if (!removed) {
    return res.status(404).json({ error: 'not found' });
  }
  res.sendStatus(204);
});

export default router;
