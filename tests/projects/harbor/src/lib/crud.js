import { Router } from 'express';

// Builds a fresh router with the five standard CRUD operations for one store.
// Every call returns its own Router instance, so '/ships' and '/cargo' do not share routes.
export function createCrudRouter(resource, store) {
  const router = Router();

  router.get('/', async (req, res) => {
    const limit = Math.min(Number(req.query.limit ?? 50), 200);
    const offset = Number(req.query.offset ?? 0);
    const items = await store.list({ limit, offset });
    res.json({ resource, items, limit, offset });
  });

  router.get('/:id', async (req, res) => {
    const item = await store.get(req.params.id);
    if (!item) {
      return res.status(404).json({ error: 'not found' });
    }
    res.json(item);
  });

  router.post('/', async (req, res) => {
    if (!req.body || typeof req.body !== 'object') {
      return res.status(400).json({ error: `${resource} body must be a JSON object` });
    }
    const created = await store.create(req.body);
    res.status(201).location(`${req.baseUrl}/${created.id}`).json(created);
  });

  router.patch('/:id', async (req, res) => {
    const updated = await store.update(req.params.id, req.body ?? {});
    if (!updated) {
      return res.status(404).json({ error: 'not found' });
    }
    res.json(updated);
  });

  router.delete('/:id', async (req, res) => {
    const removed = await store.remove(req.params.id);
    if (!removed) {
      return res.status(404).json({ error: 'not found' });
    }
    res.sendStatus(204);
  });

  return router;
}
