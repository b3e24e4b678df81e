import { randomUUID } from 'node:crypto';

export class MemoryRepo<T extends { id: string }> {
  private readonly rows = new Map<string, T>();

  all(): T[] {
    return [...this.rows.values()];
  }

  find(id: string): T | undefined {
    return this.rows.get(id);
  }

  insert(data: Omit<T, 'id'>): T {
    const row = { ...data, id: randomUUID() } as T;
    this.rows.set(row.id, row);
    return row;
  }

  save(row: T): T {
    this.rows.set(row.id, row);
    return row;
  }

  delete(id: string): boolean {
    return this.rows.delete(id);
  }
}
