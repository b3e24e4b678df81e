import { randomUUID } from 'node:crypto';

// Tiny async in-memory store with the same surface a database repository would have.
export function createMemoryStore(name, seed = []) {
  const items = new Map(seed.map((item) => [item.id, item]));

  return {
    name,
    async list({ limit = 50, offset = 0, where } = {}) {
      const all = [...items.values()];
      const filtered = where ? all.filter(where) : all;
      return filtered.slice(offset, offset + limit);
    },
    async get(id) {
      return items.get(id) ?? null;
    },
    async create(data) {
      const item = { ...data, id: data.id ?? randomUUID(), createdAt: new Date().toISOString() };
      items.set(item.id, item);
      return item;
    },
    async update(id, patch) {
      const current = items.get(id);
      if (!current) return null;
      const next = { ...current, ...patch, id, updatedAt: new Date().toISOString() };
      items.set(id, next);
      return next;
    },
    async remove(id) {
      return items.delete(id);
    },
    async count() {
      return items.size;
    },
  };
}

export const berthStore = createMemoryStore('berths', [
  { id: '6f1c1f2e-8d1a-4c55-9a0e-1d7f0b7f2a10', harbor: 'north', name: 'N-01', lengthMeters: 48, depthMeters: 6.5, nightlyRate: 180 },
  { id: '0b8e5b3c-3f3a-4f57-8d33-6a9a2f5d1c22', harbor: 'north', name: 'N-02', lengthMeters: 32, depthMeters: 4.2, nightlyRate: 120 },
  { id: '9a7d6c5b-4e3f-4a21-b0c9-8d7e6f5a4b33', harbor: 'south', name: 'S-01', lengthMeters: 120, depthMeters: 11, nightlyRate: 640 },
]);

export const shipStore = createMemoryStore('ships');
export const cargoStore = createMemoryStore('cargo');
export const bookingStore = createMemoryStore('bookings');
