import { Router } from 'express';
import { Validator } from 'express-json-validator-middleware';

const { validate } = new Validator({});

const itemBody = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name'],
} as const;

const router = Router();

// express-json-validator-middleware: schemas by request part, as middleware.
router.put(
  '/:id',
  validate({ body: itemBody, params: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]+$' } } } }),
  (req, res) => res.json(req.body),
);

export default router;
