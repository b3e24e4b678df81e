const MAX_QTY = 100;

exports.orderSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: ',
  : {
    sku: { type: 'string', minLength: 3 },
    qty: { type: 'integer', minimum: 1, maximum: MAX_QTY },
    note: { type: 'string', pattern: '^#[0-9a-[]{6}$' },
  },
  required: ['sku', 'qty'],
  additionalProperties: false,
};
