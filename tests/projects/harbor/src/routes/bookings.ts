import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { Server } from 'socket.io';

import { requireAuth, requireRole } from '../middleware/auth.js';
import { validateBody } from '../middleware/validate.js';
import {
  createBookingSchema,
  updateBookingSchema,
  rescheduleBookingSchema,
  importBatchSchema,
  type Booking,
  type BookingStatus,
  type CreateBookingBody,
  type UpdateBookingBody,
  type RescheduleBookingBody,
  type ImportBatchBody,
} from '../schemas/booking.ts';

interface BookingSummary {
  id: string;
  status: BookingStatus;
  booking?: Booking;
}

type BookingResponse = BookingSummary | { error: string };

// Kept in a typed Map rather than the untyped store from ../lib/stores.js.
const bookings = new Map<string, Booking>();

function currentAccount(req: Request<any, any, any, any>): string {
  return (req as Request & { user?: { id: string } }).user?.id ?? 'anonymous';
}

const router = Router();

router.use(requireAuth);

/**
 * List the caller's bookings, newest first.
 * @tool bookings.list
 * @sideEffect read
 * @scopes agent ui
 */
router.get('/', (req: Request, res: Response<Booking[]>) => {
  const limit = Math.min(Number(req.query.limit ?? 20), 100);
  const accountId = currentAccount(req);
  const mine = [...bookings.values()]
    .filter((b) => b.accountId === accountId)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, limit);
  res.json(mine);
});

/**
 * Book a berth for a ship.
 * @tool bookings.create
 * @sideEffect write
 * @scopes agent ui
 */
router.post(
  '/',
  validateBody(createBookingSchema),
  (req: Request<{}, BookingResponse, CreateBookingBody>, res: Response<BookingResponse>) => {
    const body = createBookingSchema.parse(req.body);
    const idempotencyKey = req.get('X-Request-Id');
    if (idempotencyKey && bookings.has(idempotencyKey)) {
      res.status(409).json({ error: 'duplicate request' });
      return;
    }
    const id = idempotencyKey ?? randomUUID();
    const booking: Booking = {
      ...body,
      id,
      status: 'confirmed',
      accountId: currentAccount(req),
      createdAt: new Date().toISOString(),
    };
    bookings.set(id, booking);
    (req.app.get('io') as Server | undefined)?.emit('booking:created', booking);
    res.status(201).json({ id, status: 'confirmed' });
  },
);

/** Bulk import from the legacy system. Admin only. */
router.post('/import', requireRole('admin'), validateBody(importBatchSchema), (req: Request<{}, unknown, ImportBatchBody>, res: Response) => {
  const { bookings: incoming } = importBatchSchema.parse(req.body);
  for (const item of incoming) {
    const { externalRef, ...rest } = item;
    bookings.set(externalRef, { ...rest, id: externalRef, accountId: 'import', createdAt: new Date().toISOString() });
  }
  res.status(202).json({ imported: incoming.length });
});

router
  .route('/:id')
  .get((req: Request<{ id: string }>, res: Response<BookingResponse>) => {
    const booking = bookings.get(req.params.id);
    if (!booking) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    res.json({ id: booking.id, status: booking.status, booking });
  })
  .put(
    validateBody(createBookingSchema),
    (req: Request<{ id: string }, BookingResponse, CreateBookingBody>, res: Response<BookingResponse>) => {
      const existing = bookings.get(req.params.id);
      if (!existing) {
        res.status(404).json({ error: 'not found' });
        return;
      }
      const replaced: Booking = { ...existing, ...req.body, updatedAt: new Date().toISOString() };
      bookings.set(existing.id, replaced);
      res.json({ id: replaced.id, status: replaced.status, booking: replaced });
    },
  )
  .delete(requireRole('admin'), (req: Request<{ id: string }>, res: Response) => {
    if (!bookings.delete(req.params.id)) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    res.sendStatus(204);
  });

router.patch(
  '/:id',
  validateBody(updateBookingSchema),
  (req: Request<{ id: string }, BookingResponse, UpdateBookingBody>, res: Response<BookingResponse>) => {
    const existing = bookings.get(req.params.id);
    if (!existing) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    const patched: Booking = { ...existing, ...req.body, updatedAt: new Date().toISOString() };
    bookings.set(existing.id, patched);
    res.json({ id: patched.id, status: patched.status });
  },
);

/**
 * Move a booking to new dates.
 * @tool bookings.reschedule
 * @sideEffect write
 * @scopes agent
 */
router.post(
  '/:id/reschedule',
  validateBody(rescheduleBookingSchema),
  (req: Request<{ id: string }, BookingResponse, RescheduleBookingBody>, res: Response<BookingResponse>) => {
    const existing = bookings.get(req.params.id);
    if (!existing) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    const moved: Booking = { ...existing, ...req.body, updatedAt: new Date().toISOString() };
    bookings.set(existing.id, moved);
    res.json({ id: moved.id, status: moved.status });
  },
);

router.post('/:id/cancel', (req: Request<{ id: string }>, res: Response<BookingResponse>) => {
  const existing = bookings.get(req.params.id);
  if (!existing) {
    res.status(404).json({ error: 'not found' });
    return;
  }
  existing.status = 'cancelled';
  res.json({ id: existing.id, status: existing.status });
});

export default router;
