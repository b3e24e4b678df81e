// Shared path fragments for the berths router.
export const BASE = '/catalog';

export const PATHS = {
  berth: '/:berthId',
  availability: '/:berthId/availability',
};
