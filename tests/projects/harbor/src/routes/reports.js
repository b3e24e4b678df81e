import { Router } from 'express';

import { requireAuth, requireRole } from '../middleware/auth.js';
import { berthStore, bookingStore } from '../lib/stores.js';

// Mounted twice (under /v1/reports and /v2/reports); both versions share these handlers.
const router = Router();

/**
 * Occupancy per harbor for one day.
 * @tool reports.occupancy
 * @sideEffect read
 * @scopes agent ui
 */
router.get('/occupancy', async (req, res) => {
  const day = typeof req.query.day === 'string' ? req.query.day : new Date().toISOString().slice(0, 10);
  const berths = await berthStore.list({ limit: 1000 });
  const booked = await bookingStore.list({ limit: 10000, where: (b) => b.arrival?.startsWith(day) });
  res.json({ day, berths: berths.length, booked: booked.length, apiVersion: req.baseUrl.split('/').at(-2) });
});

router.get('/revenue', requireAuth, requireRole('admin'), async (req, res) => {
  const from = req.query.from ?? null;
  const to = req.query.to ?? null;
  const bookings = await bookingStore.list({ limit: 10000 });
  res.json({ from, to, bookings: bookings.length, currency: 'EUR' });
});

// The pre-2023 reporting endpoint accepted any verb; it is gone for good.
router.all('/legacy', (req, res) => {
  res.status(410).json({ error: 'gone', use: `${req.baseUrl}/occupancy` });
});

export default router;
