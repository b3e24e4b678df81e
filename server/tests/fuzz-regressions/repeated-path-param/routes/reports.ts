import { Router } from 'express';

const router = Router();
const KIND = 'monthly';

router.get(`/:year:year:year`, (req, res) => {
  res.json({ year: Number(req.params.year) });
});

router.get(`/${KIND}/:year/`, async (req, res) => {
  const { year, month } = req.params;
  res.json({ kind: KIND, year, month });
});

router.post(`/`, (req, res) => res.status(202).json({ queued: true }));

export default router;
