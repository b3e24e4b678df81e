import { z } from 'zod';

export const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled'] as const;

export const createBookingSchema = z.object({
  berthId: z.string().uuid(),
  shipId: z.string(),
  arrival: z.string().datetime(),
  nights: z.number().int().min(1).max(30),
  notes: z.string().max(500).optional(),
});

/** PATCH body: any subset of the create fields. */
export const updateBookingSchema = createBookingSchema.partial();

/** Moving a booking only touches its dates. */
export const rescheduleBookingSchema = createBookingSchema.pick({ arrival: true, nights: true });

/** Bulk import from the legacy harbor-master system carries its own status. */
export const importBookingSchema = createBookingSchema.extend({
  status: z.enum(BOOKING_STATUSES),
  externalRef: z.string().min(3).max(64),
});

export const importBatchSchema = z.object({
  bookings: z.array(importBookingSchema).min(1).max(500),
});

export type CreateBookingBody = z.infer<typeof createBookingSchema>;
export type UpdateBookingBody = z.infer<typeof updateBookingSchema>;
export type RescheduleBookingBody = z.infer<typeof rescheduleBookingSchema>;
export type ImportBatchBody = z.infer<typeof importBatchSchema>;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export interface Booking extends CreateBookingBody {
  id: string;
  status: BookingStatus;
  accountId: string;
  createdAt: string;
  updatedAt?: string;
}
