// Zod-backed request validation. On success the parsed (coerced, stripped)
// value replaces req.body so handlers only ever see validated input.
export function validateBody(schema) {
  return (req, res, next) => {
    const result = schema.safeParse(req.body);
    if (!result.success) {
      return res.status(400).json({
        error: 'invalid request body',
        issues: result.error.issues.map((issue) => ({
          path: issue.path.join('.'),
          message: issue.message,
        })),
      });
    }
    req.body = result.data;
    next();
  };
}

export function validateQuery(schema) {
  return (req, res, next) => {
    const result = schema.safeParse(req.query);
    if (!result.success) {
      return res.status(400).json({ error: 'invalid query string' });
    }
    // req.query is a read-only getter in Express 5, so stash the parsed copy.
    res.locals.query = result.data;
    next();
  };
}
