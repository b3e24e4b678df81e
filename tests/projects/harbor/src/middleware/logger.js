import { randomUUID } from 'node:crypto';

export function requestLogger(req, res, next) {
  const started = process.hrtime.bigint();
  const requestId = req.get('X-Request-Id') ?? randomUUID();
  res.set('X-Request-Id', requestId);

  res.on('finish', () => {
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`${requestId} ${req.method} ${req.originalUrl} -> ${res.statusCode} (${elapsedMs.toFixed(1)} ms)`);
  });

  next();
}
