const { Router } = require('express');
const Ajv = require('ajv');
const { orderSchema } = require('../schemas/order');

const ajv = new Ajv({ allErrors: true });
const validateOrder = ajv.compile(orderSchema);

const router = Router();

// A compiled validator applied to the body inside the handler.
router.post('/', (req, res) => {
  if (!validateOrder(req.body)) {
    return res.status(400).json({ errors: validateOrder.errors });
  }
  res.status(201).json({ ok: true });
});

// `ajv.validate(schema, data)` on the query.
router.get('/', (req, res) => {
  const valid = ajv.validate(
    { type: 'object', properties: { status: { enum: ['open', 'closed'] } } },
    req.query,
  );
  if (!valid) return res.sendStatus(400);
  res.json([]);
});

module.exports = router;
